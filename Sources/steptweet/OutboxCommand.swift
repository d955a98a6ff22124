import Agent
import ArgumentParser
import Foundation
import Messages
import Store
import WallTime

/// `steptweet outbox`: the posts waiting, failed or unconfirmed; re-queue or give up failed ones.
struct OutboxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "List pending, failed and unconfirmed posts; re-queue (retry) or give up (drop) posts by ID.",
        discussion: """
            A post that failed permanently (HTTP 400/404 after a configuration mistake, say) stays in the outbox \
            until you act: fix the configuration, then `steptweet outbox retry ID` re-queues it for the next fetch, \
            with its original idempotency key, so a post that did reach its target is not doubled. `steptweet outbox \
            drop ID --reason "…"` gives it up and records why. Exit status 66 for an ID with no entry, 65 for an \
            entry already delivered or dropped; the other IDs given are changed.

            Examples:
              steptweet outbox
              steptweet outbox retry 12 13
              steptweet outbox drop 14 --reason "posted by hand"
            """,
        subcommands: [OutboxList.self, OutboxRetry.self, OutboxDrop.self],
        defaultSubcommand: OutboxList.self
    )

    /// `outbox --config F retry 12`: the options before the subcommand are taken too.
    @OptionGroup var configOptions: ConfigOptions

    /// The subcommand's `--config`, else the one given before it.
    static func load(_ own: ConfigOptions, parent: OutboxCommand) throws -> AgentConfiguration {
        try ConfigOptions.load(path: own.config ?? parent.configOptions.config ?? AgentConfiguration.defaultPath())
    }
}

struct OutboxList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List pending, failed and unconfirmed posts.")

    @ParentCommand var outbox: OutboxCommand
    @OptionGroup var configOptions: ConfigOptions
    @Flag(help: "Also list delivered and dropped posts.") var all = false
    @Flag(help: "One JSON array of posts.") var json = false

    func run() throws {
        let config = try OutboxCommand.load(configOptions, parent: outbox)
        let entries: [OutboxRecord]
        do {
            entries = try StateStore(readOnlyPath: config.statePath).outbox()
                .filter { all || $0.status == .pending || $0.status == .failed || $0.unconfirmed }
        } catch {
            throw stateFailure(error, path: config.statePath)
        }
        let zone = config.composer.timeZone
        if json {
            printLine(jsonLine(entries.map { OutboxJSON($0, zone: zone) }))
            return
        }
        if entries.isEmpty { printLine(all ? "the outbox is empty" : "nothing pending, failed or unconfirmed") }
        for e in entries { printLine(TerminalText.escaped(OutboxJSON.line(e, zone: zone))) }
    }
}

struct OutboxRetry: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract: "Re-queue failed posts for the next fetch (same idempotency key).")

    @ParentCommand var outbox: OutboxCommand
    @OptionGroup var configOptions: ConfigOptions
    @Argument(help: "Outbox IDs (see `steptweet outbox`).") var ids: [Int64]

    func run() throws {
        let config = try OutboxCommand.load(configOptions, parent: outbox)
        try change(config) { try $0.retryOutbox(ids: ids) }
    }
}

struct OutboxDrop: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drop", abstract: "Give posts up: they are never sent.")

    @ParentCommand var outbox: OutboxCommand
    @OptionGroup var configOptions: ConfigOptions
    @Option(help: "Why (recorded with the post).") var reason = "dropped by hand"
    @Argument(help: "Outbox IDs (see `steptweet outbox`).") var ids: [Int64]

    func run() throws {
        let config = try OutboxCommand.load(configOptions, parent: outbox)
        try change(config) { try $0.dropOutbox(ids: ids, reason: reason) }
    }
}

/// Applies an outbox change and prints one line per ID. An ID with no entry is an input named on the command line that
/// is missing (66, as a missing file: the command line was well formed, the state has no such entry); an entry already
/// delivered or dropped cannot change (65). The valid IDs are changed either way.
private func change(_ config: AgentConfiguration, _ apply: (StateStore) throws -> [StateStore.OutboxChange]) throws {
    let changes: [StateStore.OutboxChange]
    do {
        changes = try apply(try StateStore(path: config.statePath, busyTimeout: 5))
    } catch {
        throw stateFailure(error, path: config.statePath)
    }
    var status: Int32 = 0
    for c in changes {
        switch c {
        case .changed(let e): printLine(TerminalText.escaped(OutboxJSON.line(e, zone: config.composer.timeZone)))
        case .notFound(let id):
            printError(
                "error: no outbox entry \(id) in \(config.statePath) (`steptweet outbox --all` lists every entry)")
            status = max(status, ExitStatus.noInput)
        case .final(let e):
            printError("error: outbox entry \(e.id ?? 0) is \(e.status): nothing to do")
            status = max(status, ExitStatus.dataError)
        }
    }
    if status != 0 { throw ExitCode(status) }
}

/// One outbox entry as `outbox --json` prints it.
struct OutboxJSON: Encodable {
    var id: Int64
    var status: String
    var unconfirmed: Bool
    var target: String
    var windowStart: String
    var windowEnd: String
    var steps: Int
    var text: String
    var idempotencyKey: String
    var attempts: Int
    var nextAttempt: String
    var remoteId: String?
    var lastError: String?

    init(_ e: OutboxRecord, zone: TimeZone) {
        let f = { (d: Date) in Timestamps.format(d, zone: zone) }
        id = e.id ?? 0
        status = e.status.rawValue
        unconfirmed = e.unconfirmed
        target = e.target
        windowStart = f(e.window.span.start.date)
        windowEnd = f(e.window.span.end.date)
        steps = e.window.steps
        text = e.window.text
        idempotencyKey = e.window.idempotencyKey
        attempts = e.attempts
        nextAttempt = f(e.nextAttempt.date)
        remoteId = e.remoteID
        lastError = e.lastError
    }

    /// `12  failed  mastodon  2026-11-21T10:00:00+09:00 〜 …  1234 steps  2 attempts  last error: HTTP 404: …`, with
    /// `next attempt …` for a pending entry already tried (a server's Retry-After, the backoff), so that a long wait
    /// is not taken for a stuck outbox.
    static func line(_ e: OutboxRecord, zone: TimeZone) -> String {
        let j = OutboxJSON(e, zone: zone)
        let tried = e.status == .pending && e.attempts > 0 && e.nextAttempt.nanosecondsSinceEpoch > 0
        let next = tried ? "  next attempt \(j.nextAttempt)" : ""
        return "\(j.id)  \(j.status)\(j.unconfirmed ? " (unconfirmed)" : "")  \(j.target)  \(j.windowStart) 〜 "
            + "\(j.windowEnd)  \(j.steps) steps  " + quantity(j.attempts, "attempt") + next
            + (j.lastError.map { "  last error: \($0)" } ?? "")
    }
}
