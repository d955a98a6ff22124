import Foundation
import Testing

/// The helper that edits saved JSON back to an older build's: what it removes, and that it says when a path's
/// object is missing (a test of an older state must not pass by editing nothing).
@Suite struct SavedJSONTests {
    struct Saved: Codable, Equatable {
        struct Item: Codable, Equatable { var kept: Int, dropped: Int? }
        struct Inner: Codable, Equatable { var kept: Int, dropped: Int? }
        var top: Int?
        var items: [Item]
        var inner: Inner
    }

    static let full = Saved(
        top: 1, items: [.init(kept: 2, dropped: 3), .init(kept: 4, dropped: nil)], inner: .init(kept: 5, dropped: 6))

    @Test func removesTopLevelNestedAndEachArrayItemsKeys() throws {
        let edited = try SavedJSON.decode(
            Saved.self, from: SavedJSON.object(encoding: Self.full),
            removing: ["top", "items[].dropped", "inner.dropped"])
        #expect(
            edited
                == Saved(
                    top: nil, items: [.init(kept: 2, dropped: nil), .init(kept: 4, dropped: nil)],
                    inner: .init(kept: 5, dropped: nil)))
    }

    @Test func aMissingObjectOnThePathIsAnError() throws {
        let object = try SavedJSON.object(encoding: Self.full)
        #expect(throws: SavedJSON.NotThere.self) {
            try SavedJSON.decode(Saved.self, from: object, removing: ["nowhere.key"])
        }
        #expect(throws: SavedJSON.NotThere.self) {
            try SavedJSON.decode(Saved.self, from: object, removing: ["inner[].kept"])
        }
    }

    @Test func aParameterKeyThatIsNotSavedUnderItsNameIsAnError() throws {
        #expect(throws: SavedJSON.NotThere.self) {
            try SavedJSON.parameterSavedBeforeItExisted("minGaitRepeats", \.minGaitRepeat, marker: -2)
        }
        let old = try SavedJSON.parameterSavedBeforeItExisted("minGaitRepeat", \.minGaitRepeat, marker: -2)
        #expect(old != -2)
    }
}
