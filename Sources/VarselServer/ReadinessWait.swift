import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Waits for a running instance to say it is ready (`GET /readyz` answers 200), for systemd's `ExecStartPost` and for
/// rolling restarts: `varsel ready --port 8081` returns once that instance can use its database.
public enum ReadinessWait {
    /// What one ask found.
    enum Answer: Equatable {
        case ready
        /// It answered, and is not ready: its own sentence.
        case notReady(String)
        /// Nothing answered at the address.
        case noAnswer
    }

    /// Asks until the instance at `host`:`port` is ready or `seconds` have passed; throws a one-sentence failure then.
    public static func wait(host: String, port: Int, seconds: Int) async throws {
        let deadline = Date().addingTimeInterval(TimeInterval(seconds))
        var last = Answer.noAnswer
        repeat {
            last = ask(host: host, port: port)
            if last == .ready { return }
            try await Task.sleep(for: .milliseconds(250))
        } while Date() < deadline
        let within = seconds == 1 ? "1 second" : "\(seconds) seconds"
        switch last {
        case let .notReady(sentence):
            throw Administration.Failure("The instance at \(host):\(port) was not ready within \(within): \(sentence)")
        default:
            throw Administration.Failure("Nothing answered at \(host):\(port) within \(within): check that varsel serve runs on that port.")
        }
    }

    /// One `GET /readyz` over HTTP/1.0, reading the whole short answer.
    static func ask(host: String, port: Int) -> Answer {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let address = found else { return .noAnswer }
        defer { freeaddrinfo(found) }
        let socket = Glibc.socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
        guard socket >= 0 else { return .noAnswer }
        defer { close(socket) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connect(socket, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 else { return .noAnswer }
        let request = Array("GET /readyz HTTP/1.0\r\nHost: \(host)\r\n\r\n".utf8)
        guard send(socket, request, request.count, 0) == request.count else { return .noAnswer }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < 65536 {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return answer(String(decoding: received, as: UTF8.self))
    }

    /// Reads an HTTP answer to `GET /readyz`.
    static func answer(_ text: String) -> Answer {
        guard let statusLine = text.split(separator: "\r\n", maxSplits: 1).first, statusLine.hasPrefix("HTTP/") else { return .noAnswer }
        let status = statusLine.split(separator: " ").dropFirst().first
        if status == "200" { return .ready }
        let body = text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
        let sentence = body.trimmingCharacters(in: .whitespacesAndNewlines)
        return .notReady(sentence.hasPrefix("not ready: ") ? String(sentence.dropFirst("not ready: ".count)) : "it answered \(status ?? "")")
    }
}
