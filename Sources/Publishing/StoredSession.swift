import Foundation

/// An access token (with its expiry when known) and the refresh token that gets the next pair, as a server hands
/// them out: X's OAuth 2.0 tokens, a Bluesky session. Stored as one JSON text, so the two change together.
protocol RotatingTokens: Sendable, Equatable {
    var accessToken: String? { get }
    var expiresAt: Date? { get }
    var refreshToken: String { get }
    var json: String { get }
    init?(json: String)
}

/// The timing every `StoredSession` shares.
enum SessionTiming {
    /// How long before its expiry an access token counts as expired: a post's budget and some clock skew.
    static let expiryMargin: TimeInterval = 300
}

extension RotatingTokens {
    /// The access token, unless it is missing, was just refused or expires within the margin of `now`.
    func usableAccessToken(now: Date, refused: String?) -> String? {
        guard let accessToken, !accessToken.isEmpty, accessToken != refused else { return nil }
        if let expiresAt, expiresAt.timeIntervalSince(now) <= SessionTiming.expiryMargin { return nil }
        return accessToken
    }
}

/// What a refresh came to: new tokens, a refusal of the refresh token (in the server's words, redacted), or a
/// failure that stops the post for now (never unconfirmed: nothing was posted).
enum GrantAnswer<Tokens: Sendable>: Sendable {
    case issued(Tokens)
    case refused(String)
    case stopped(Stop)
}

/// How one kind of server issues and renews tokens; `StoredSession` does the rest (the store, the order, the race).
protocol TokenGrant: Sendable {
    associatedtype Tokens: RotatingTokens
    /// Where the tokens are kept in the `TargetInfoCache`: the server, the account and a fingerprint of the
    /// configured secret, so that a changed secret starts afresh.
    var storageKey: String { get }
    /// The tokens to begin with when none are stored (X's configured refresh token); nil: `start` gets them.
    var seed: Tokens? { get }
    /// The tokens as errors name them: "OAuth 2.0 tokens".
    var tokensName: String { get }
    /// What a lost store costs, for the error that says the new tokens could not be stored.
    var lossAdvice: String { get }
    /// How long a refused refresh waits for another process that won the race to store its tokens (zero: look once).
    var raceWait: Duration { get }
    /// Renews `tokens` with their refresh token.
    func refresh(_ tokens: Tokens, context: HTTPContext, deadline: Deadline) async -> GrantAnswer<Tokens>
    /// New tokens without a refresh token: when none are stored and there is no seed, or after `refusal` with nothing
    /// newer stored. Bluesky logs in again; X cannot, and says how to authorize again.
    func start(refusal: String?, context: HTTPContext, deadline: Deadline) async -> Result<Tokens, Stop>
}

/// The tokens a request is sent with, and whether they were renewed (or taken over from another process) for it: a
/// refusal of tokens renewed just now is not renewed again.
struct SessionAccess<Tokens: RotatingTokens>: Sendable, Equatable {
    var tokens: Tokens
    var refreshed: Bool
    /// The access token to send.
    var token: String { tokens.accessToken ?? "" }
}

/// Keeps one account's access token usable across processes: the tokens stored in the context's `TargetInfoCache`
/// (the state database in the agent) win over the seed; a missing, expiring or refused access token is renewed; new
/// tokens are stored durably before their access token is used (a server that rotates refresh tokens makes the old
/// one stop working). Two processes (the agent and a one-shot `steptweet fetch`) may renew at once: the server
/// refuses the loser's used refresh token, and the loser takes what the winner stored, else `start`s afresh.
/// Renewals within one process are shared, never run twice at once.
actor StoredSession<Grant: TokenGrant> {
    typealias Tokens = Grant.Tokens
    typealias Obtained = Result<Tokens, Stop>

    nonisolated let grant: Grant
    let context: HTTPContext
    /// Tokens the server handed out that could not be stored yet: stored before anything else is done.
    private var unstored: Tokens?
    private var renewing: Task<Obtained, Never>?

    init(grant: Grant, context: HTTPContext) {
        self.grant = grant
        self.context = context
    }

    /// The tokens to send with: the stored ones (else the seed) when their access token is usable, else renewed
    /// ones. `refused` is an access token the server just refused.
    func access(deadline: Deadline, refused: String? = nil) async -> Result<SessionAccess<Tokens>, Stop> {
        if let running = renewing { return await running.value.map(Self.renewed) }
        if let unstored {
            if case .failure(let stop) = await persist(unstored) { return .failure(stop) }
        }
        let current: Tokens?
        switch await stored() {
        case .failure(let stop): return .failure(stop)
        case .success(let tokens): current = tokens ?? grant.seed
        }
        if let current, current.usableAccessToken(now: context.now(), refused: refused) != nil {
            return .success(SessionAccess(tokens: current, refreshed: false))
        }
        // Another caller may have begun a renewal while this one read the store.
        if let running = renewing { return await running.value.map(Self.renewed) }
        let task = Task { await self.renew(current, deadline: deadline) }
        renewing = task
        let result = await task.value
        renewing = nil
        return result.map(Self.renewed)
    }

    static func renewed(_ tokens: Tokens) -> SessionAccess<Tokens> { SessionAccess(tokens: tokens, refreshed: true) }

    /// The stored tokens, nil when none are stored; a store that cannot be read stops the post (the seed may be used
    /// up already: using it would end in a refusal that is no one's fault).
    func stored() async -> Result<Tokens?, Stop> {
        do {
            guard let info = try await context.infoCache.readInfo(grant.storageKey) else { return .success(nil) }
            return .success(Tokens(json: info.value))
        } catch {
            return .failure(
                Stop(
                    .retryable(
                        reason: context.redactor.redact("cannot read the stored \(grant.tokensName): \(error)"),
                        retryAfter: nil)))
        }
    }

    private func renew(_ current: Tokens?, deadline: Deadline) async -> Obtained {
        guard let current else { return await start(refusal: nil, deadline: deadline) }
        return await refresh(current, deadline: deadline, afterRace: false)
    }

    /// Refreshes `tokens`. A refusal after another process stored newer tokens uses those (refreshing them when
    /// their access token is not usable); otherwise the grant starts afresh.
    private func refresh(_ tokens: Tokens, deadline: Deadline, afterRace: Bool) async -> Obtained {
        switch await grant.refresh(tokens, context: context, deadline: deadline) {
        case .issued(let new): return await persist(new)
        case .stopped(let stop): return .failure(stop)
        case .refused(let refusal):
            if !afterRace, let newer = await newerStored(than: tokens.refreshToken, deadline: deadline) {
                switch newer {
                case .failure(let stop): return .failure(stop)
                case .success(let other):
                    if other.usableAccessToken(now: context.now(), refused: nil) != nil { return .success(other) }
                    return await refresh(other, deadline: deadline, afterRace: true)
                }
            }
            return await start(refusal: refusal, deadline: deadline)
        }
    }

    private func start(refusal: String?, deadline: Deadline) async -> Obtained {
        switch await grant.start(refusal: refusal, context: context, deadline: deadline) {
        case .failure(let stop): return .failure(stop)
        case .success(let tokens): return await persist(tokens)
        }
    }

    /// Stores `tokens` durably (a second try after a failure); on failure keeps them to store before the next
    /// attempt does anything, and stops the post: an access token whose refresh token is not kept is not used.
    private func persist(_ tokens: Tokens) async -> Obtained {
        let info = TargetInfo(value: tokens.json, storedAt: context.now())
        var failure: Error?
        for _ in 0..<2 {
            do {
                try await context.infoCache.storeDurably(info, for: grant.storageKey)
                unstored = nil
                return .success(tokens)
            } catch {
                failure = error
            }
        }
        unstored = tokens
        let why = "\(failure.map { "\($0)" } ?? "unknown error")"
        return .failure(
            Stop(
                .retryable(
                    reason: context.redactor.redact(
                        "the new \(grant.tokensName) could not be stored (\(why)); nothing is posted until they are, and the next attempt stores them first. \(grant.lossAdvice)"
                    ), retryAfter: nil)))
    }

    /// Tokens another process stored after refreshing with `refreshToken` (which the server then refused to us),
    /// nil when there are none. The winner of a race may still be storing what it got, so with a `raceWait` an
    /// unchanged store is looked at once more after that pause on the deadline's clock.
    private func newerStored(than refreshToken: String, deadline: Deadline) async -> Obtained? {
        for look in 0..<2 {
            if look > 0 {
                guard grant.raceWait > .zero, deadline.remaining > grant.raceWait * 2 else { return nil }
                try? await deadline.pause(for: grant.raceWait)
            }
            switch await stored() {
            case .failure(let stop): return .failure(stop)
            case .success(let tokens):
                if let tokens, tokens.refreshToken != refreshToken { return .success(tokens) }
            }
        }
        return nil
    }
}

extension Stop {
    /// A failed renewal or login as the post's outcome, its reason led by `doing`: the post was not sent, so it is
    /// never unconfirmed.
    static func notPosted(_ outcome: DeliveryOutcome, doing: String) -> Stop {
        if case .retryable(let reason, let wait, _) = outcome {
            return Stop(.retryable(reason: "\(doing): \(reason)", retryAfter: wait))
        }
        return Stop(outcome)
    }
}
