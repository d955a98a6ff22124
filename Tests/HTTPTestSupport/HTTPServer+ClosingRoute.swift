import FlyingFox

extension HTTPServer {
    /// How long `waitUntilStarted` waits. FlyingFox's own default, 5 s, is less than a busy machine can take to get a
    /// task onto a thread (a full parallel test run on two cores, a loaded Raspberry Pi running the demo), and the
    /// demo then failed with FlyingFox's bare "Task timed out" message.
    public static let startupTimeout: Double = 120

    /// Waits until the server listens, for up to `startupTimeout`.
    public func waitUntilStarted() async throws {
        try await waitUntilListening(timeout: Self.startupTimeout)
    }

    /// `appendRoute` whose every response says `Connection: close`, for the tests' loopback servers. FlyingFox writes a response's header and body in
    /// two writes without `TCP_NODELAY`; on a kept-alive connection the body then waits for the client's delayed ACK
    /// (40 ms on Linux) from the second request on. A new connection per request is answered in about 2 ms.
    public func appendClosingRoute(
        _ route: HTTPRoute,
        handler: @Sendable @escaping (HTTPRequest) async throws -> HTTPResponse
    ) {
        appendRoute(route) { request in
            var response = try await handler(request)
            response.headers[.connection] = "close"
            return response
        }
    }
}
