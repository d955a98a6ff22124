import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// One connection's limits in time, and the answers to requests that cannot be parsed, as a handler between SwiftNIO's
/// HTTP/1.1 parser and Hummingbird (`HTTP1Channel.Configuration.additionalChannelHandlers`):
/// - a connection has `idleTimeout` to bring the next request's head in full, from its opening or its last answer
///   (an idle connection, a head sent byte by byte), and `readTimeout` to bring that request's body from its head
///   (a slow or endless body); then it is closed. No timer runs while a request is being answered.
/// - a request that asks for `100 Continue` (`Expect: 100-continue`) gets it when its head arrives;
/// - a head over the parser's limit is answered 431, any other request the parser refuses 400, with a JSON error;
/// - an answer written before its request was read in full (401, 413, 431, …) closes the connection once written,
///   after a short linger that reads and drops what the client still sends, so that the answer is not lost to a
///   reset; the rest of such a body is never read;
/// - while it waits for a request's head it is in the server's `WaitingConnections`, which closes the one waiting
///   longest when the server is full.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let idleTimeout: TimeAmount
    let readTimeout: TimeAmount
    /// `max_header`, named in the 431's text.
    let maxHeader: Int
    /// `max_body`: a body announced over it gets no `100 Continue`.
    let maxBody: Int
    /// The most header fields a request may have (the parser's limit, beside `max_header`'s bytes).
    static let maxHeaderFields = 200
    /// How long a connection that is being closed after an early answer still reads (and drops) what arrives.
    let linger: TimeAmount

    /// Requests whose head arrived, whose end arrived, and whose answer was written in full, on this connection
    /// (pipelined requests are read ahead of their answers).
    private var heads = 0
    private var ends = 0
    private var answers = 0
    /// A request's head arrived and its end not yet.
    private var reading: Bool { heads > ends }
    /// The answer being written came before its request was read in full: close once it is written.
    private var closeAfterAnswer = false
    /// The connection is closing: its input is dropped until the linger ends.
    private var lingering = false
    private var timer: Scheduled<Void>?
    /// The server's connections waiting for a head, this one among them while it waits.
    private let waiting: WaitingConnections?

    init(limits: HTTPLimits, waiting: WaitingConnections? = nil, linger: TimeAmount = .seconds(2)) {
        idleTimeout = .nanoseconds(Int64(limits.idleTimeout * 1e9))
        readTimeout = .nanoseconds(Int64(limits.readTimeout * 1e9))
        maxHeader = limits.maxHeader
        maxBody = limits.maxBody
        self.waiting = waiting
        self.linger = linger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { waitForHead(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) { disarm() }

    func channelActive(context: ChannelHandlerContext) {
        waitForHead(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if lingering { return }
        switch unwrapInboundIn(data) {
        case .head(let request):
            heads += 1
            arm(context, readTimeout)
            if expectsContinue(request) {
                // Clients that ask wait for it before they send the body (curl for a second; others until the read
                // timeout closed the connection): the request is read, whatever its answer will be.
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
            }
        case .body:
            break
        case .end:
            ends += 1
            disarm()
        }
        context.fireChannelRead(data)
    }

    /// Whether the request asks for `100 Continue` before it sends its body (`Expect: 100-continue`, with a body)
    /// and its body may be read: one whose Content-Length is over `max_body` is answered 413 at once instead, and its
    /// client need not send it.
    func expectsContinue(_ request: HTTPRequest) -> Bool {
        guard request.headerFields[.expect]?.lowercased() == "100-continue" else { return false }
        let length = request.headerFields[.contentLength].flatMap { Int($0) }
        if let length, length > maxBody { return false }
        return request.headerFields[.transferEncoding] != nil || (length ?? 0) > 0
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head:
            // The answer is to request number `answers + 1`: was its end read?
            if ends <= answers { closeAfterAnswer = true }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            answers += 1
            context.writeAndFlush(data, promise: promise)
            if closeAfterAnswer {
                closeAfterLinger(context)
            } else if answers >= heads {
                waitForHead(context)
            }
        }
    }

    /// Graceful shutdown: a request still arriving is dropped (nothing of it is stored; its sender sends it again),
    /// an idle connection is closed by Hummingbird's own handler, an answer being made is let finish.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent && reading {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if lingering { return }
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        if heads > answers {
            // Broken within a request already handed on (a bad chunk): nothing more can be read of it.
            context.close(promise: nil)
            return
        }
        let tooLarge = parserError == .headerOverflow
        let message =
            tooLarge
            ? "the request's head (request line and header fields) is larger than the receiver takes: over "
                + "max_header (\(maxHeader) bytes) or over \(Self.maxHeaderFields) header fields"
            : "the request cannot be parsed as HTTP/1.1 (\(parserError))"
        var body = context.channel.allocator.buffer(capacity: message.utf8.count + 16)
        body.writeString("{\"error\":\"\(message)\"}")
        let status: HTTPResponse.Status =
            tooLarge ? .init(code: 431, reasonPhrase: "Request Header Fields Too Large") : .badRequest
        let head = HTTPResponse(
            status: status,
            headerFields: [
                .contentType: "application/json", .contentLength: String(body.readableBytes), .connection: "close",
            ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        closeAfterLinger(context)
    }

    /// Closes the connection's output now and the connection after `linger`, dropping what arrives meanwhile.
    private func closeAfterLinger(_ context: ChannelHandlerContext) {
        lingering = true
        closeAfterAnswer = false
        context.close(mode: .output, promise: nil)
        arm(context, linger)
    }

    /// Between requests: the next head must come within `idleTimeout`, and until it does the connection may be closed
    /// to make room.
    private func waitForHead(_ context: ChannelHandlerContext) {
        arm(context, idleTimeout)
        waiting?.startWaiting(ObjectIdentifier(self), channel: context.channel)
    }

    private func arm(_ context: ChannelHandlerContext, _ timeout: TimeAmount) {
        disarm()
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: timeout) {
            loopBound.value.close(promise: nil)
        }
    }

    private func disarm() {
        timer?.cancel()
        timer = nil
        waiting?.stopWaiting(ObjectIdentifier(self))
    }
}
