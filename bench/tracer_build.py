"""Builds a detector tracer: a bench Swift program compiled with `swiftc -O` together with the detector's own sources
(Sources/StepDetection, or copies of them with taps added), so that it reads the detector's state after each sample
without a trace flag in the detector. Used by bout_misses.py, fold_paths.py and h47start_refused_starts.py; every
tracer also reads recordings with `bench/trace_samples.swift`."""
import os, subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def swift_sources(module, root=ROOT):
    """The Swift files of `Sources/<module>` under `root`, sorted."""
    folder = os.path.join(root, "Sources", module)
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".swift"))


def compile_tracer(out, main_swift, module, name, detector_files=None, parse_as_library=False):
    """Compiles WallTimeCore into `out`, then `main_swift` (copied to out/main.swift) with `detector_files` (the
    detector's sources by default) and trace_samples.swift into the module `module`; returns the binary out/`name`."""
    os.makedirs(out, exist_ok=True)
    main = os.path.join(out, "main.swift")
    with open(main_swift) as src, open(main, "w") as dst:
        dst.write(src.read())
    subprocess.run(["swiftc", "-O", "-wmo", "-parse-as-library", "-module-name", "WallTimeCore", "-emit-module-path",
                    os.path.join(out, "WallTimeCore.swiftmodule"), "-c", "-o", os.path.join(out, "WallTimeCore.o")]
                   + swift_sources("WallTimeCore"), check=True)
    binary = os.path.join(out, name)
    library = ["-parse-as-library"] if parse_as_library else []
    subprocess.run(["swiftc", "-O", "-wmo"] + library + ["-module-name", module, "-I", out, "-o", binary]
                   + (detector_files or swift_sources("StepDetection"))
                   + [main, os.path.join(ROOT, "bench", "trace_samples.swift"), os.path.join(out, "WallTimeCore.o")],
                   check=True)
    return binary
