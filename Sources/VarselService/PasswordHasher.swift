import Crypto
import Foundation
import HummingbirdBcrypt
import NIOPosix
import VarselStore

/// Hashes and checks passwords with bcrypt, off the request threads.
public struct PasswordHasher: Sendable {
    /// The bcrypt cost; 12 in production, lower only in tests.
    public var cost: UInt8
    /// A hash of a random password at `cost`, checked against when the username is unknown, so that a sign-in
    /// takes as long whether or not the account exists. Made in the background from the start (at cost 12 it takes
    /// about 0.23 s here), so that the server is ready without waiting for it.
    let decoyHash: Task<String, Never>
    /// Checks bcrypt's input against a hash: bcrypt itself, or, in tests, bcrypt watched to see which hashes it was given.
    let check: @Sendable (_ input: String, _ hash: String) -> Bool

    public init(cost: UInt8 = 12, check: @escaping @Sendable (_ input: String, _ hash: String) -> Bool = PasswordHasher.bcrypt) {
        self.cost = cost
        self.check = check
        let secret = Tokens.random()
        decoyHash = Task {
            let hash = try? await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(secret, cost: cost) }
            return hash ?? Bcrypt.hash(secret, cost: cost)
        }
    }

    /// Checks bcrypt's input against a bcrypt hash.
    public static func bcrypt(_ input: String, _ hash: String) -> Bool { Bcrypt.verify(input, hash: hash) }

    public func hash(_ password: String) async throws -> String {
        let cost = cost
        let input = Self.bcryptInput(password)
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(input, cost: cost) }
    }

    public func verify(_ password: String, hash: String) async throws -> Bool {
        let input = Self.bcryptInput(password)
        let check = check
        return try await NIOThreadPool.singleton.runIfActive { check(input, hash) }
    }

    /// What bcrypt reads for `password`: the password itself up to bcrypt's 72 bytes, and past them, or when it holds a
    /// NUL (where bcrypt's input would end), its SHA-256 in base64, so that no byte of a password is ignored.
    /// (Passwords were at most 72 bytes before, so every stored hash was made from the password itself.)
    static func bcryptInput(_ password: String) -> String {
        password.utf8.count <= 72 && !password.utf8.contains(0) ? password : Data(SHA256.hash(data: Data(password.utf8))).base64EncodedString()
    }

    /// Checks `password` against `hash`, or, when there is no account or it has no password yet (an empty hash,
    /// waiting for its set-password link), against the decoy at the same cost and answers false: the time taken does
    /// not tell whether the account exists.
    public func verify(_ password: String, hashIfAccountExists hash: String?) async throws -> Bool {
        let usable = hash.flatMap { $0.isEmpty ? nil : $0 }
        let checked: String
        if let usable { checked = usable } else { checked = await decoyHash.value }
        let matches = try await verify(password, hash: checked)
        return usable != nil && matches
    }
}
