import SensorInput

/// What the parsers do with an item they cannot read: leave it out and list it (`Payload.refused`), so that one bad
/// point does not keep its neighbours out (the phone sends the same point again for days); and how the receiver
/// words what was left out.
extension Payload {
    /// Leaves an item out for `error`.
    mutating func refuse(_ error: PayloadError) {
        refusedCount += 1
        if refused.count < Self.refusedKept { refused.append(error) }
    }

    /// Leaves an item out when `read` throws, naming `device` when the error names none. Item readers throw only
    /// `PayloadError`s; anything else is kept as its description.
    mutating func refusingItem(device: @autoclosure () -> String? = nil, _ read: (inout Payload) throws -> Void) {
        do {
            try read(&self)
        } catch {
            var refusal = error as? PayloadError ?? PayloadError(path: "", message: String(describing: error))
            if refusal.device == nil { refusal.device = device() }
            refuse(refusal)
        }
    }

    /// "stored 18 items, left out 2 that cannot be read": what the receiver did with the payload (its items are
    /// stored; a test message's are none).
    var refusalHeadline: String {
        "stored \(counted(items.count, "item")), left out \(refusedCount) that cannot be read"
    }

    /// The first `limit` refusals, "field: why" each (with `devices`, "device: field: why" where the item named one),
    /// joined with "; ", and "and N more" for the rest.
    func refusalSummary(naming limit: Int, devices: Bool = true) -> String {
        var parts = refused.prefix(limit).map { e in
            guard devices, let device = e.device else { return e.description }
            return "\(device): \(e)"
        }
        if refusedCount > parts.count { parts.append("and \(refusedCount - parts.count) more") }
        return parts.joined(separator: "; ")
    }
}

extension PayloadError {
    /// The error for a field that holds the wrong kind of value.
    static func expected(_ what: String, at path: String, found value: JSONTree?) -> PayloadError {
        PayloadError(path: path, message: "expected \(what), found \(value.map(\.shortDescription) ?? "nothing")")
    }
}

/// Rounds microsteps half up to whole steps.
func wholeSteps(microsteps: Int64) -> Int {
    Int(microsteps / 1_000_000 + (microsteps % 1_000_000 >= 500_000 ? 1 : 0))
}

/// How many of what, for `ignored`: "1 workout", "3 workouts".
func counted(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(n) \(n == 1 ? singular : plural ?? singular + "s")"
}
