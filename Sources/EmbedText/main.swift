import Foundation

// EmbedText INPUT OUTPUT TYPE: writes a Swift source declaring `enum TYPE` with the UTF-8 text of INPUT as `text` and
// its file name as `name`. Run at build time by the EmbedDemoRecording plugin.

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: EmbedText INPUT OUTPUT TYPE\n".utf8))
    exit(64)
}
let (input, output, type) = (arguments[1], arguments[2], arguments[3])
guard let data = FileManager.default.contents(atPath: input), let text = String(data: data, encoding: .utf8),
    !text.contains("\r")
else {
    // A raw string literal turns CRLF into LF, so such a text would not come back byte for byte.
    FileHandle.standardError.write(Data("EmbedText: \(input): cannot be read as UTF-8 text with LF lines\n".utf8))
    exit(65)
}
// A raw string's delimiter needs more `#` than any `"#…` or `\#…` run in the text.
var hashes = "#"
while text.contains("\"" + hashes) || text.contains("\\" + hashes) { hashes += "#" }
let name = (input as NSString).lastPathComponent
let source = """
    // Generated at build time from \(name) by the EmbedDemoRecording plugin: do not edit.

    enum \(type) {
        static let name = \(hashes)"\(name)"\(hashes)
        static let text = \(hashes)\"""
    \(text)
    \"""\(hashes)
    }

    """
// Written beside OUTPUT and renamed over it, so a build never compiles half a file. (Foundation's `.atomic` goes
// through a folder in /tmp that it leaves behind on Linux.)
let partial = output + ".partial"
do {
    try Data(source.utf8).write(to: URL(fileURLWithPath: partial))
    guard rename(partial, output) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
} catch {
    unlink(partial)
    FileHandle.standardError.write(Data("EmbedText: \(output): \(error)\n".utf8))
    exit(73)
}
