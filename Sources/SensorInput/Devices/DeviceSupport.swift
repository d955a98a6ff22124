#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where live sensors are looked for: `/sys` and `/dev` normally, a fake tree in tests.
public struct DeviceRoots: Sendable, Equatable {
    public var sys: String
    public var dev: String

    public init(sys: String = "/sys", dev: String = "/dev") {
        self.sys = sys
        self.dev = dev
    }
}

/// Small helpers to read sysfs attribute files.
enum SysfsFile {
    /// The file's text without the trailing newline, nil when it cannot be read.
    static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, 256) }
        guard n >= 0 else { return nil }
        var text = String(decoding: buffer[0..<n], as: UTF8.self)
        while let last = text.last, last == "\n" || last == " " || last == "\0" { text.removeLast() }
        return text
    }

    static func double(_ path: String) -> Double? {
        read(path).flatMap { text in Fields.double(Substring(text)) }
    }

    static func int(_ path: String) -> Int64? { read(path).flatMap { Int64($0) } }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Names in a directory, sorted; empty when it cannot be read.
    static func list(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}

/// A problem with a live device (missing, vanished, unreadable), naming its path.
public struct DeviceError: Error, CustomStringConvertible, Sendable, Equatable {
    public var path: String
    public var message: String
    public var description: String { "\(path): \(message)" }

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
}
