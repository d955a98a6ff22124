import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A received HTTP response: status, headers with lower-cased names, and body.
public struct HTTPReply: Sendable, Equatable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        self.body = body
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Why no response arrived.
public enum TransportFailure: Error, Sendable, Equatable {
    /// The deadline passed first; the request was cancelled (it may or may not have reached the server).
    case deadline
    /// Connection reset or lost, a bad response, … after the request may have been sent.
    case network(String)
    /// Refused connection, unknown host, failed TLS handshake: the request cannot have reached the server.
    case notSent(String)

    /// The same failure with its text passed through `redactor`.
    func redacted(_ redactor: Redactor) -> TransportFailure {
        switch self {
        case .deadline: return .deadline
        case .network(let text): return .network(redactor.redact(text))
        case .notSent(let text): return .notSent(redactor.redact(text))
        }
    }
}

/// Sends one HTTP request and returns the reply. Implementations need not watch a deadline: `HTTPContext.send`
/// races them against it and cancels the calling task when it passes, which must end the request promptly.
/// Production uses `URLSessionSender`; unit tests an in-memory fake (`FakeHTTPServer` in HTTPTestSupport).
public protocol HTTPSending: Sendable {
    func send(_ request: URLRequest) async -> Result<HTTPReply, TransportFailure>
}

/// The real network, through URLSession (ephemeral: no cookies, no cache).
///
/// On Linux `URLRequest.timeoutInterval` is an idle timeout only (a server that drips a byte a second never trips
/// it), and `timeoutIntervalForResource` is ignored; so `HTTPContext.send` races each request against its deadline
/// (`Deadline.race`) and cancels it when the deadline wins.
public struct URLSessionSender: HTTPSending {
    /// The largest answer read, in bytes; a longer one is cut off there and the request fails as a network error
    /// (unconfirmed: the server may have made the post). Nil: no limit.
    public var answerLimit: Int?

    /// A target's answers are a few KB (a Mastodon look-up's 40 statuses some 200 KB): 16 MiB bounds what a hostile
    /// or broken server streams into memory before the deadline (2.7 GB in 10 s over loopback, unbounded).
    public static let targetAnswerLimit = 16 << 20

    public init(answerLimit: Int? = URLSessionSender.targetAnswerLimit) {
        self.answerLimit = answerLimit
    }

    /// One session for the process, made at the first request: making a URLSession starts libcurl and its TLS
    /// library, resident memory that an agent posting only to a file, stdout or nowhere yet never needs.
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration, delegate: SessionDelegate.shared, delegateQueue: nil)
    }()

    public func send(_ request: URLRequest) async -> Result<HTTPReply, TransportFailure> {
        await Self.exchange(request, session: Self.session, limit: answerLimit)
    }

    /// One request through a data task whose answer `SessionDelegate` gathers. Cancelling the calling task cancels
    /// the request from another queue: cancelling it inside the task's cancellation handler (as URLSession's async
    /// `data(for:)` does) can deadlock on Linux against a transfer completing at the same moment.
    static func exchange(_ request: URLRequest, session: URLSession, limit: Int?) async -> Result<
        HTTPReply, TransportFailure
    > {
        let handle = DataTaskHandle()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let task = session.dataTask(with: request)
                SessionDelegate.shared.gather(task, limit: limit) { data, response, error in
                    continuation.resume(returning: reply(data, response, error, limit: limit))
                }
                handle.start(task)
            }
        } onCancel: {
            handle.cancel()
        }
    }

    /// A finished task's answer as a reply or a failure.
    static func reply(_ data: Data, _ response: URLResponse?, _ error: Error?, limit: Int?) -> Result<
        HTTPReply, TransportFailure
    > {
        if error is SessionDelegate.TooLarge {
            return .failure(.network("the answer is longer than \(limit ?? 0) bytes: not read"))
        }
        if let error {
            let cancelled = (error as? URLError)?.code == .cancelled
            return .failure(cancelled ? .deadline : failure(error))
        }
        guard let http = response as? HTTPURLResponse else { return .failure(.network("not an HTTP response")) }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return .success(HTTPReply(status: http.statusCode, headers: headers, body: data))
    }

    /// A URLSession error as a transport failure: not sent when the request cannot have reached the server.
    static func failure(_ error: Error) -> TransportFailure {
        let urlError = error as? URLError
        if urlError?.code == .timedOut { return .deadline }
        let text = urlError.map { "\($0.code.rawValue) \($0.localizedDescription)" } ?? "\(error)"
        let beforeSending: Set<URLError.Code> = [
            .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed,
            .notConnectedToInternet, .secureConnectionFailed,
            .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot,
            .clientCertificateRejected, .unsupportedURL, .badURL,
        ]
        if let code = urlError?.code, beforeSending.contains(code) { return .notSent(text) }
        return .network(text)
    }
}

/// The session's delegate: gathers each task's answer (up to its limit, then cancels it) and hands it over when the
/// task ends. Redirects are not followed: the 3xx comes back as the answer (`ResponseClassifier`: permanent, naming
/// where it points). Followed, a target's `Authorization` went with the request to whatever host the `Location`
/// named, and a 301 or 302 turned the post into a GET.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    static let shared = SessionDelegate()

    /// The error a task ends with when its answer passed its limit.
    struct TooLarge: Error {}

    private final class Gathering {
        var data = Data()
        var tooLarge = false
        let limit: Int?
        let done: (Data, URLResponse?, Error?) -> Void
        init(limit: Int?, done: @escaping (Data, URLResponse?, Error?) -> Void) {
            self.limit = limit
            self.done = done
        }
    }

    private let lock = NSLock()
    private var tasks: [Int: Gathering] = [:]

    /// Gathers `task`'s answer and calls `done` once when it ends; before the task is resumed.
    func gather(_ task: URLSessionTask, limit: Int?, done: @escaping (Data, URLResponse?, Error?) -> Void) {
        lock.withLock { tasks[task.taskIdentifier] = Gathering(limit: limit, done: done) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = lock.withLock { () -> Bool in
            guard let g = tasks[dataTask.taskIdentifier], !g.tooLarge else { return false }
            if let limit = g.limit, g.data.count + data.count > limit {
                g.tooLarge = true
                g.data = Data()
                return true
            }
            g.data.append(data)
            return false
        }
        if over { DispatchQueue.global().async { dataTask.cancel() } }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        guard let g = lock.withLock({ tasks.removeValue(forKey: task.taskIdentifier) }) else { return }
        g.done(g.data, task.response, g.tooLarge ? TooLarge() : error)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// A URLSession task that may be cancelled before or after it starts; the cancel runs on another queue.
private final class DataTaskHandle: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var cancelled = false

    func start(_ task: URLSessionDataTask) {
        let cancelled = lock.withLock {
            self.task = task
            return self.cancelled
        }
        task.resume()
        if cancelled { DispatchQueue.global().async { task.cancel() } }
    }

    func cancel() {
        let task: URLSessionDataTask? = lock.withLock {
            cancelled = true
            return self.task
        }
        if let task { DispatchQueue.global().async { task.cancel() } }
    }
}

/// Builds the targets' `URLRequest`s: a body of its content type, a JSON answer asked for, our User-Agent.
enum Requests {
    /// A request whose body is `body` as JSON (`JSONBody`).
    static func json(_ method: String, _ url: URL, body: some Encodable, headers: [String: String] = [:]) -> URLRequest
    {
        data(method, url, contentType: "application/json; charset=utf-8", body: JSONBody.data(body), headers: headers)
    }

    /// A request whose body is `body` of `contentType` (a PNG, a multipart form, JSON).
    static func data(
        _ method: String, _ url: URL, contentType: String, body: Data?, headers: [String: String] = [:]
    ) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("steptweet", forHTTPHeaderField: "User-Agent")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        return request
    }
}
