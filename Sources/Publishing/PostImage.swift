import Foundation

/// A picture that goes with a post: the window's chart as a PNG, with the alt text written from its data for people
/// who cannot see it.
public struct PostImage: Sendable, Equatable, Codable {
    public var png: Data
    /// Alt text in the template's language, within every target's alt-text limit.
    public var alt: String
    /// Pixel size, for targets that ask for an aspect ratio (Bluesky).
    public var width: Int
    public var height: Int

    public init(png: Data, alt: String, width: Int, height: Int) {
        self.png = png
        self.alt = alt
        self.width = width
        self.height = height
    }
}

/// A target's `image` and `image_required` keys: whether its posts carry the window's chart, and whether a post whose
/// upload failed may go out as text only.
public struct ImageOption: Sendable, Equatable {
    /// `image = "chart"`.
    public var chart: Bool
    /// `image_required` (default true): a failed upload fails the post rather than posting the text alone.
    public var required: Bool

    public init(chart: Bool, required: Bool = true) {
        self.chart = chart
        self.required = required
    }

    /// `image` unset: text only.
    public static let off = ImageOption(chart: false)
}
