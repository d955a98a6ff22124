import Foundation
import TestSupport
import Testing

@testable import SensorInput

/// Zips as apps export them, built here from the real shared samples: each must count what the file inside counts,
/// and a damaged one must be an error naming the zip, the entry and what is wrong.
@Suite(.temporaryFolder) struct ZipTests {
    static let entry = "apple_health_export/export.xml"

    func sample() throws -> [UInt8] {
        try Array(Data(contentsOf: URL(fileURLWithPath: formatFixture("apple_health_export.xml"))))
    }

    func readings(_ path: String, options: ReadOptions = ReadOptions()) throws -> (ReadSummary, [StepReading]) {
        let (summary, items) = try readAll(path, options: options)
        return (summary, items.compactMap { if case .reading(let r) = $0 { r } else { nil } })
    }

    /// An Apple Health `export.zip` as the phone writes it, the export beside the files it also holds.
    func export(_ xml: [UInt8], deflate: Bool = true, zip64: Bool = false, comment: String = "") -> ZipBuilder {
        var zip = ZipBuilder()
        zip.add("apple_health_export/", [], deflate: false)
        zip.add("apple_health_export/export_cda.xml", Array("<?xml version=\"1.0\"?>\n<ClinicalDocument/>\n".utf8))
        zip.add(Self.entry, xml, deflate: deflate)
        zip.add("apple_health_export/workout-routes/route_2016-04-30_7.06pm.gpx", Array("<gpx/>\n".utf8))
        zip.zip64 = zip64
        zip.comment = Array(comment.utf8)
        return zip
    }

    struct Variant: Sendable, CustomStringConvertible {
        var description: String
        var deflate: Bool
        var zip64: Bool
        var comment: String
    }

    static let variants = [
        Variant(description: "deflated", deflate: true, zip64: false, comment: ""),
        Variant(description: "stored", deflate: false, zip64: false, comment: ""),
        Variant(description: "zip64, deflated", deflate: true, zip64: true, comment: ""),
        Variant(description: "zip64, stored", deflate: false, zip64: true, comment: ""),
        Variant(description: "with a comment", deflate: true, zip64: false, comment: "PK\u{5}\u{6} lookalike"),
        Variant(description: "zip64 with a comment", deflate: true, zip64: true, comment: "exported"),
    ]

    @Test(arguments: variants) func appleHealthExportZipCountsWhatTheXMLCounts(_ v: Variant) throws {
        let xml = try sample()
        let (plain, plainReadings) = try readings(formatFixture("apple_health_export.xml"))
        #expect(plain.steps == 2517)  // the sample's 10 StepCount records
        let zip = export(xml, deflate: v.deflate, zip64: v.zip64, comment: v.comment)
        let path = try temporaryFile(zip.bytes(), name: "export.zip")
        let (s, r) = try readings(path)
        #expect(s.format == "apple-health")
        #expect(s.steps == plain.steps)
        #expect(r == plainReadings)
        // Held in memory (pushed data, fuzzing), and with the format named: the same.
        var fromMemory: [InputItem] = []
        let m = try AnyInput.read(bytes: zip.bytes(), name: "export.zip") { fromMemory.append($0) }
        #expect(m.steps == plain.steps)
        #expect(try readings(path, options: ReadOptions(format: "apple-health")).0.steps == plain.steps)
    }

    @Test func zip64DirectoryIsReadFromItsExtraFields() throws {
        let archive = try ZipArchive(bytes: export(try sample(), zip64: true).bytes(), name: "export.zip")
        let entry = try #require(archive.entries.first { $0.name == Self.entry })
        #expect(entry.size == Int64(try sample().count))
        #expect(entry.localHeaderOffset > 0)
        #expect(archive.entries.map(\.name).count == 4)
    }

    /// Every entry of a real export is streamed in pieces of any size: the bytes and the CRC-32 come out the same.
    @Test func entryStreamsInSmallPieces() throws {
        let xml = try sample()
        let archive = try ZipArchive(bytes: export(xml).bytes(), name: "export.zip")
        let reader = try ZipEntryReader(archive, try #require(archive.entries.first { $0.name == Self.entry }))
        var out: [UInt8] = []
        var piece = [UInt8](repeating: 0, count: 7)
        while true {
            let n = try piece.withUnsafeMutableBufferPointer { try reader.read(into: $0.baseAddress!, count: 7) }
            if n == 0 { break }
            out += piece.prefix(n)
        }
        #expect(out == xml)
    }

    func error(_ bytes: [UInt8], name: String = "export.zip") throws -> InputError {
        let path = try temporaryFile(bytes, name: name)
        let error = try #require(throws: InputError.self) { try readAll(path) }
        #expect(error.file.hasPrefix(path))
        return error
    }

    @Test func truncatedZipIsAnError() throws {
        let whole = export(try sample()).bytes()
        // Cut anywhere after the entries: the end record is gone.
        for cut in [22, 200, whole.count / 2] {
            let e = try error(Array(whole.prefix(whole.count - cut)))
            #expect(e.message.contains("truncated"), "\(e)")
        }
        // The entry's deflate data cut short, the directory intact.
        var zip = ZipBuilder()
        zip.add(Self.entry, try sample())
        var bytes = zip.bytes()
        let cut = try #require(ZipArchive(bytes: bytes, name: "x").entries.first)
        let dataStart = 30 + Self.entry.utf8.count
        bytes.removeSubrange((dataStart + Int(cut.compressedSize) - 40)..<(dataStart + Int(cut.compressedSize)))
        bytes = rebuilt(bytes, removing: 40, after: dataStart)
        let e = try error(bytes)
        #expect(e.message.contains("entry \(Self.entry)") && e.message.contains("truncated"), "\(e)")
    }

    /// Shifts the directory's offsets and the compressed size of a one-entry zip after `removing` bytes of its data.
    func rebuilt(_ b: [UInt8], removing: Int, after dataStart: Int) -> [UInt8] {
        var b = b
        func patch(_ at: Int, minus: Int) {
            let v = Int(ZipArchive.u32(b, at)) - minus
            b.replaceSubrange(at..<(at + 4), with: ZipBuilder.u32(v))
        }
        let end = b.count - 22
        let central = Int(ZipArchive.u32(b, end + 16)) - removing
        patch(end + 16, minus: removing)
        patch(18, minus: removing)  // local header's compressed size
        patch(central + 20, minus: removing)
        return b
    }

    @Test func crcMismatchIsAnErrorNotAShortCount() throws {
        let xml = try sample()
        var zip = export(xml, deflate: false)
        var bytes = zip.bytes()
        // The first record's 329 steps made 229 inside the stored data: the same length, a different CRC-32, and
        // 100 steps fewer if it were read.
        let value = Array("value=\"329\"".utf8)
        let at = try #require(
            (0..<(bytes.count - value.count)).first { Array(bytes[$0..<($0 + value.count)]) == value })
        bytes[at + 7] = UInt8(ascii: "2")
        let e = try error(bytes)
        #expect(e.message.contains("entry \(Self.entry)") && e.message.contains("CRC-32 mismatch"), "\(e)")
        // Deflated: the directory's CRC-32 disagrees with the data.
        zip = export(xml)
        bytes = zip.bytes()
        let archive = try ZipArchive(bytes: bytes, name: "x")
        let index = try #require(archive.entries.firstIndex { $0.name == Self.entry })
        var directoryEntry = Int(ZipArchive.u32(bytes, bytes.count - 22 + 16))
        for k in 0..<index {
            let name = archive.entries[k].name.utf8.count
            directoryEntry += 46 + name
        }
        bytes[directoryEntry + 16] ^= 0x55
        let d = try error(bytes)
        #expect(d.message.contains("CRC-32 mismatch"), "\(d)")
    }

    @Test func zipWithoutExportXMLListsWhatItHolds() throws {
        var zip = ZipBuilder()
        zip.add("apple_health_export/export_cda.xml", Array("<ClinicalDocument/>\n".utf8))
        zip.add("apple_health_export/electrocardiograms/ecg_2020-01-01.csv", Array("Name,x\n".utf8))
        let e = try error(zip.bytes())
        #expect(e.message.contains("no export.xml in this zip"), "\(e)")
        #expect(e.message.contains("apple_health_export/export_cda.xml"))
        #expect(e.message.contains("electrocardiograms/ecg_2020-01-01.csv"))
        // Named as apple-health, a zip of something else says what it lacks.
        var other = ZipBuilder()
        other.add("notes.txt", Array("hello\n".utf8))
        let path = try temporaryFile(other.bytes(), name: "other.zip")
        let named = try #require(throws: InputError.self) {
            try readAll(path, options: ReadOptions(format: "apple-health"))
        }
        #expect(named.message.contains("no export.xml in this zip") && named.message.contains("notes.txt"))
        // An empty archive.
        #expect(try error(ZipBuilder().bytes()).message.contains("0 files"))
    }

    /// macOS Archive Utility and streaming writers set flag bit 3: the local header's CRC-32 and sizes are 0 and a data
    /// descriptor follows each entry's data; the directory has them. Stored or deflated, zip64 or not: the same count.
    @Test(arguments: [(false, false), (true, false), (false, true), (true, true)])
    func dataDescriptorsAreReadFromTheDirectory(_ deflate: Bool, _ zip64: Bool) throws {
        var zip = export(try sample(), deflate: deflate, zip64: zip64)
        for k in zip.items.indices { zip.items[k].descriptor = true }
        let (s, _) = try readings(try temporaryFile(zip.bytes(), name: "export.zip"))
        #expect(s.format == "apple-health" && s.steps == 2517)
    }

    /// A zip made on a Mac holds `__MACOSX/` and `._` resource forks beside the export: they are not the export.
    @Test func macOSResourceForksAreNotTheExport() throws {
        var zip = ZipBuilder()
        zip.add("__MACOSX/apple_health_export/._export.xml", [0, 5, 22, 7, 0, 2, 0, 0])
        zip.add("apple_health_export/._export.xml", [0, 5, 22, 7, 0, 2, 0, 0])
        zip.add(Self.entry, try sample())
        let (s, _) = try readings(try temporaryFile(zip.bytes(), name: "export.zip"))
        #expect(s.format == "apple-health" && s.steps == 2517)
        // Only resource forks: no export, and said so.
        var forks = ZipBuilder()
        forks.add("__MACOSX/apple_health_export/._export.xml", [0, 5, 22, 7])
        #expect(try error(forks.bytes()).message.contains("0 files"))
    }

    /// Two exports zipped together (an old one kept beside the new): which to count is the user's choice, not the
    /// directory order's; the error names both.
    @Test func twoExportsInOneZipAreAnError() throws {
        var zip = ZipBuilder()
        zip.add("old/" + Self.entry, try sample())
        zip.add(Self.entry, try sample())
        let e = try error(zip.bytes())
        #expect(e.message.contains("2 files named export.xml"), "\(e)")
        #expect(e.message.contains("old/\(Self.entry), \(Self.entry)"), "\(e)")
        // With `__MACOSX/` copies beside the one export, it is read.
        var one = ZipBuilder()
        one.add(Self.entry, try sample())
        one.add("__MACOSX/" + Self.entry, try sample())
        #expect(try readings(try temporaryFile(one.bytes(), name: "export.zip")).0.steps == 2517)
    }

    @Test func encryptedAndUnsupportedEntriesAreNamed() throws {
        var zip = export(try sample())
        zip.items[2].flags = 1
        let encrypted = try error(zip.bytes())
        #expect(encrypted.message.contains("entry \(Self.entry)") && encrypted.message.contains("encrypted"))
        zip.items[2].flags = 0
        zip.items[2].method = 12
        let bzip2 = try error(zip.bytes())
        #expect(bzip2.message.contains("method 12 (bzip2) is not supported"), "\(bzip2)")
    }

    /// Sensor Logger's and phyphox's zip exports: the recording's CSV inside counts what the CSV counts.
    @Test(arguments: [
        ("sensorlogger_TotalAcceleration.csv", "Walk-2024-01-17_08-14-46/TotalAcceleration.csv", "sensor-logger"),
        ("phyphox_Raw Data.csv", "Acceleration with g 2024-01-17 08-14-46/Raw Data.csv", "phyphox"),
    ])
    func accelerometerExportZips(_ file: String, _ entry: String, _ format: String) throws {
        let csv = try Array(Data(contentsOf: URL(fileURLWithPath: try derivedWalk(file))))
        let (plain, plainItems) = try readAll(try derivedWalk(file))
        var zip = ZipBuilder()
        zip.add(entry.split(separator: "/").first.map { "\($0)/meta/device.csv" } ?? "", Array("a,b\n".utf8))
        zip.add(entry, csv)
        zip.add("Walk/Metadata.csv", Array("version,device name\n1,phone\n".utf8))
        let (s, items) = try readAll(try temporaryFile(zip.bytes(), name: "export.zip"))
        #expect(s.format == format)
        #expect(s.samples == plain.samples && s.samples >= 3000)
        #expect(samples(items) == samples(plainItems))
    }

    /// A Gadgetbridge backup rewritten as zip64 reads through the same reader.
    @Test func gadgetbridgeBackupAsZip64() throws {
        let fixture = SharedData.packageRoot.appendingPathComponent("fixtures/formats/gadgetbridge_backup.zip").path
        let archive = try ZipArchive(path: fixture)
        var zip = ZipBuilder()
        for entry in archive.entries where !entry.isDirectory {
            zip.add(entry.name, try ZipEntryReader(archive, entry).readAll())
        }
        zip.zip64 = true
        let (s, items) = try readAll(try temporaryFile(zip.bytes(), name: "gadgetbridge.zip"))
        let (plain, plainItems) = try readAll(fixture)
        #expect(s.format == "gadgetbridge" && s.steps == plain.steps && items == plainItems)
    }

    /// Follow mode keeps offsets under a file's identity: a zip is refused there, with what to do instead.
    @Test func followModeRefusesAZip() throws {
        let path = try temporaryFile(export(try sample()).bytes(), name: "export.zip")
        let e = try #require(throws: InputError.self) { try SourceReader.readNew(path: path, cursor: nil) { _ in } }
        #expect(e.message.contains("unzip \(Self.entry)"), "\(e)")
    }
}
