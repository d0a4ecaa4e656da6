import Crypto
import Foundation
import HummingbirdBcrypt
import NIOPosix

/// Hashes and checks passwords with bcrypt, off the request threads.
public struct PasswordHasher: Sendable {
    /// The bcrypt cost; 12 in production, lower only in tests.
    public var cost: UInt8

    public init(cost: UInt8 = 12) {
        self.cost = cost
    }

    public func hash(_ password: String) async throws -> String {
        let cost = cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    public func verify(_ password: String, hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }
}

/// Makes session tokens and the hashes under which they are stored.
public enum Tokens {
    /// A new random token: 32 bytes, base64url without padding.
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The SHA-256 of `token`, hex: what the store keeps instead of the token.
    public static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Compares two secrets in time independent of where they differ.
    public static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.utf8), b = Array(rhs.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// Slows down repeated failed sign-ins: after a few failures for a username (or from an address), further
/// attempts are refused until a delay that doubles with each failure has passed.
public actor LoginThrottle {
    /// How many failures are free before the delay starts.
    public let freeFailures: Int
    /// The first delay; each further failure doubles it, up to `maximumDelay`.
    public let baseDelay: TimeInterval
    public let maximumDelay: TimeInterval
    private let now: @Sendable () -> Date
    private var failures: [String: (count: Int, last: Date)] = [:]

    public init(freeFailures: Int = 5, baseDelay: TimeInterval = 1, maximumDelay: TimeInterval = 300, now: @escaping @Sendable () -> Date) {
        self.freeFailures = freeFailures
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.now = now
    }

    /// Seconds to wait before `keys` may try again; 0 when they may try now.
    public func retryAfter(_ keys: [String]) -> TimeInterval {
        let current = now()
        return keys.map { key -> TimeInterval in
            guard let entry = failures[key], entry.count >= freeFailures else { return 0 }
            let delay = min(maximumDelay, baseDelay * pow(2, Double(entry.count - freeFailures)))
            return max(0, entry.last.addingTimeInterval(delay).timeIntervalSince(current))
        }.max() ?? 0
    }

    public func recordFailure(_ keys: [String]) {
        let current = now()
        for key in keys {
            let count = (failures[key]?.count ?? 0) + 1
            failures[key] = (count, current)
        }
        // Forget entries idle for longer than the longest delay, so the table cannot grow without bound.
        if failures.count > 10_000 {
            failures = failures.filter { current.timeIntervalSince($0.value.last) < maximumDelay }
        }
    }

    public func recordSuccess(_ keys: [String]) {
        keys.forEach { failures[$0] = nil }
    }
}
