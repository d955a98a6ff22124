# StepCountTweeter: `make demo` and `make test` do all setup on a fresh Debian with Swift 6.3.
SWIFT ?= swift
# librsvg2-2 draws the window's chart (opened when the first chart is drawn, no headers needed); fonts-dejavu-core gives
# its text a font, fonts-ipaexfont-gothic its Japanese words (a Japanese text's chart). zlib1g-dev: zip and gzip inputs
# and the chart's PNG (Sources/CZlib), named here because Swift's images carry it but a bare Debian may not.
APT_PACKAGES := libcurl4-openssl-dev libsqlite3-dev zlib1g-dev librsvg2-2 fonts-dejavu-core fonts-ipaexfont-gothic
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

PREFIX ?= $(HOME)/.local
STRIP ?= strip

.PHONY: all deps test-deps build release static man install deb demo test check-links unit-test eval integration-test fault-test install-test bench fuzz clean format lint

all: build

# What the unit tests need beyond the build: rsvg-convert, to look at the pixels of `count --plot`'s pictures.
TEST_APT_PACKAGES := librsvg2-bin

# Installs the Debian packages in $(1) that are missing.
define apt_install_missing
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
endef

# The Debian packages the build links against.
deps:
	$(call apt_install_missing,$(APT_PACKAGES))

test-deps:
	$(call apt_install_missing,$(TEST_APT_PACKAGES))

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# The binary to install: Swift runtime and Foundation linked in, so an idle agent can give their pages back
# (14.8 MB resident when idle, stripped, instead of 27-28 MB with the shared libraries; bench/idle_rss_result.txt).
static: deps
	$(SWIFT) build -c release --static-swift-stdlib --product steptweet --scratch-path .build-static

# The man pages: steptweet(1) from the command's own help (swift-argument-parser's generate-manual plugin), and
# steptweet.toml(5), the configuration's keys, from the sample `steptweet init` writes (`init --man-page`).
MANUAL := .build/plugins/GenerateManual/outputs/steptweet/steptweet.1
CONFIG_MANUAL := .build/man/steptweet.toml.5
man: deps
	$(SWIFT) package generate-manual --configuration debug --authors "StepCountTweeter developers"
	$(SWIFT) build --product steptweet
	mkdir -p $(dir $(CONFIG_MANUAL))
	"$$($(SWIFT) build --show-bin-path)/steptweet" init --man-page > $(CONFIG_MANUAL).partial
	mv $(CONFIG_MANUAL).partial $(CONFIG_MANUAL)

# The binary, its man page and bash, zsh and fish completions under $(PREFIX) (default ~/.local). The binary is
# stripped: its symbol table and debug information are most of its size on disk and none of what it runs.
install: static man
	install -D -m 755 -s --strip-program=$(STRIP) .build-static/release/steptweet $(PREFIX)/bin/steptweet
	install -D -m 644 $(MANUAL) $(PREFIX)/share/man/man1/steptweet.1
	install -D -m 644 $(CONFIG_MANUAL) $(PREFIX)/share/man/man5/steptweet.toml.5
	mkdir -p $(PREFIX)/share/bash-completion/completions $(PREFIX)/share/zsh/site-functions $(PREFIX)/share/fish/vendor_completions.d
	$(PREFIX)/bin/steptweet --generate-completion-script bash > $(PREFIX)/share/bash-completion/completions/steptweet
	$(PREFIX)/bin/steptweet --generate-completion-script zsh > $(PREFIX)/share/zsh/site-functions/_steptweet
	$(PREFIX)/bin/steptweet --generate-completion-script fish > $(PREFIX)/share/fish/vendor_completions.d/steptweet.fish

demo: build
	./.build/debug/steptweet demo

test: check-links deps lint unit-test fault-test integration-test

# Every relative link and heading anchor in the Markdown resolves (Python's standard library only, so it runs first,
# before anything is installed or built); the self-test checks that the checker finds broken ones.
check-links:
	$(call apt_install_missing,python3)
	python3 scripts/check_links.py --self-test
	python3 scripts/check_links.py

# Everything but the suite that needs real servers (IntegrationTests fails without them, on purpose) and the
# evaluations over ../shared (the suites named *SharedDataTests), which a lone clone does not have: `make eval`.
SHARED_SUITES := SharedDataTests
unit-test: test-deps
	$(SWIFT) test --skip IntegrationTests --skip $(SHARED_SUITES)

# The evaluations over ../shared beside the checkout (labelled recordings, whole exports): only the *SharedDataTests
# suites, which fail (instead of being left out) when the folder is missing (STEPTWEET_REQUIRE_SHARED=1).
SHARED_DATA ?= $(abspath ../shared)
eval: test-deps
	@[ -d "$(SHARED_DATA)" ] || { echo "make eval: needs the shared data folder at $(SHARED_DATA) (../shared)" >&2; exit 1; }
	STEPTWEET_SHARED_DATA="$(SHARED_DATA)" STEPTWEET_REQUIRE_SHARED=1 $(SWIFT) test --filter $(SHARED_SUITES)

# The receiver under hostile traffic (bench/fault_harness.py, about 2.5 minutes, loopback only): a real agent abused
# while a phone pushes; exits 1 when a target of issue #45 is missed.
fault-test:
	$(SWIFT) build --product steptweet
	python3 bench/fault_harness.py "$$($(SWIFT) build --show-bin-path)/steptweet"

# Synapse and mastodon-mock from PyPI on 127.0.0.1 (venv cached in .venv-integration/), then IntegrationTests.
integration-test:
	SWIFT=$(SWIFT) Tests/integration/run.sh

# A Debian package of the static binary: man pages, completions, /etc/steptweet/config.toml and a systemd system
# service running as its own `steptweet` user (contrib/debian/). Written to DEB_DIR (default: the checkout).
DEB_DIR ?= $(CURDIR)
deb: static man
	bash contrib/debian/build-deb.sh .build-static/release/steptweet $(MANUAL) $(CONFIG_MANUAL) $(DEB_DIR)

# `make install` into a temporary PREFIX; checks the installed copy away from the checkout (stripped, demo, man pages);
# then the Debian package unpacked into a temporary root (lintian checks it: installed here when missing).
install-test:
	$(call apt_install_missing,lintian)
	Tests/install/run.sh
	Tests/install/deb.sh

bench: static
	bash bench/run.sh

# libFuzzer harnesses for every SensorInput parser (fuzz/, a separate package); each runs FUZZ_SECONDS.
FUZZ_SECONDS ?= 60
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash fuzz/run.sh

# swift-format with the committed .swift-format (4 spaces, 120 columns).
FORMAT_PATHS := Package.swift Plugins Sources Tests fuzz bench
format:
	$(SWIFT) format --in-place --recursive --parallel $(FORMAT_PATHS)

lint:
	$(SWIFT) format lint --strict --recursive --parallel $(FORMAT_PATHS)

clean:
	rm -rf .build
