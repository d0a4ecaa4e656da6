import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

/// Why a PostgreSQL database could not be opened, one sentence each, naming the user, database or address from the
/// URL but never its password.
public enum PostgresOpenFailure: Error, Equatable, CustomStringConvertible {
    /// The server refused the password (SQLSTATE 28P01).
    case passwordRefused(user: String)
    /// The server asks for a password and the URL has none.
    case passwordMissing(user: String)
    /// No role of that name (SQLSTATE 28000, "role … does not exist").
    case unknownRole(user: String)
    /// The server's rules (`pg_hba.conf`) do not let this user connect from here (SQLSTATE 28000).
    case notAllowed(user: String)
    /// No database of that name (SQLSTATE 3D000).
    case unknownDatabase(name: String)
    /// The user may not create Varsel's tables or use them (SQLSTATE 42501).
    case permissionDenied(user: String)
    /// The host name does not resolve.
    case unknownHost(host: String)
    /// Nothing accepts connections at that address.
    case refused(host: String, port: Int)
    /// Nothing answered at that address within the connect timeout.
    case noAnswer(host: String, port: Int, seconds: Int)
    /// The URL asks for TLS (`sslmode=require`) and the server offers none.
    case tlsUnsupported
    /// The user name or password holds a character a URL gives another meaning (`@`, `#`, `/`, `?`, `:`).
    case needsPercentEncoding

    public var description: String {
        switch self {
        case let .passwordRefused(user):
            "PostgreSQL refused the password for user \(user): check the password in the database URL."
        case let .passwordMissing(user):
            "PostgreSQL wants a password for user \(user), and the database URL has none: write it as postgres://\(user):password@host/database."
        case let .unknownRole(user):
            "PostgreSQL has no user \(user): create it (createuser \(user)) or correct the user in the database URL."
        case let .notAllowed(user):
            "PostgreSQL does not let user \(user) connect from this machine: allow it in the server's pg_hba.conf, or check the URL."
        case let .unknownDatabase(name):
            "PostgreSQL has no database \(name): create it (createdb -O <user> \(name)) or correct the database in the URL."
        case let .permissionDenied(user):
            "PostgreSQL denied user \(user) the right to create or use Varsel's tables: make it the database's owner, "
                + "or grant it CREATE and USAGE on schema public."
        case let .unknownHost(host):
            "The database host \(host) cannot be found: check the host in the database URL."
        case let .refused(host, port):
            "Nothing accepts connections at \(host):\(port): check the host and port in the database URL, and that PostgreSQL is running there."
        case let .noAnswer(host, port, seconds):
            "No PostgreSQL server answered at \(host):\(port) within \(seconds) seconds: check the host and port in the database URL, "
                + "and that no firewall is in the way."
        case .tlsUnsupported:
            "The PostgreSQL server offers no TLS, which the database URL asks for with sslmode=require."
        case .needsPercentEncoding:
            "The user name or password in the database URL holds @, #, /, ? or :, which must be percent-encoded (@ as %40, # as %23, / as %2F, ? as %3F, : as %3A)."
        }
    }
}

extension PostgresRepository {
    /// How long one connection attempt may take before the server counts as not answering.
    static let connectTimeout = 10

    /// Whether the user information of `url` (before the host) holds a character that must be percent-encoded.
    static func needsPercentEncoding(_ url: String) -> Bool {
        guard let schemeEnd = url.range(of: "://") else { return false }
        let rest = url[schemeEnd.upperBound...]
        guard let at = rest.lastIndex(of: "@") else { return false }
        let userInfo = rest[..<at]
        if userInfo.contains(where: { "@/#?".contains($0) }) { return true }
        // One colon separates the user from the password; a second belongs to the password.
        return userInfo.filter { $0 == ":" }.count > 1
    }

    /// Connects once, before the pool is made, to learn at once why the database cannot be opened: the pool retries
    /// every failure, so a wrong password would otherwise look like a server that never answers.
    static func probe(url: String, logger: Logger) async throws {
        let parts = try URLParts(url)
        let (host, port, user) = (parts.host, parts.port, parts.user)
        let database = parts.database ?? user
        var connection = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: parts.password,
            database: database,
            tls: parts.requiresTLS ? .require(try NIOSSLContext(configuration: .makeClientConfiguration())) : .disable)
        connection.options.connectTimeout = TimeAmount.seconds(Int64(connectTimeout))
        do {
            let opened = try await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: connection,
                id: 0, logger: logger
            ).get()
            try? await opened.close()
        } catch let error as PSQLError {
            throw failure(for: error, user: user, database: database, host: host, port: port) ?? error
        } catch {
            throw connectionFailure(error, host: host, port: port) ?? error
        }
    }

    /// The sentence for an error PostgreSQL or the connection gave; nil for one that has none.
    static func failure(for error: PSQLError, user: String, database: String, host: String, port: Int) -> PostgresOpenFailure? {
        switch error.code {
        case .server:
            let message = error.serverInfo?[.message] ?? ""
            switch error.serverInfo?[.sqlState] {
            case "28P01": return .passwordRefused(user: user)
            case "28000": return message.contains("does not exist") ? .unknownRole(user: user) : .notAllowed(user: user)
            case "3D000": return .unknownDatabase(name: database)
            case "42501": return .permissionDenied(user: user)
            default: return nil
            }
        case .authMechanismRequiresPassword: return .passwordMissing(user: user)
        case .sslUnsupported: return .tlsUnsupported
        case .connectionError: return error.underlying.flatMap { connectionFailure($0, host: host, port: port) } ?? .refused(host: host, port: port)
        default: return nil
        }
    }

    /// The SQLSTATE of a server's error, also when a transaction wraps it.
    static func sqlState(of error: any Error) -> String? {
        if let error = error as? PSQLError { return error.serverInfo?[.sqlState] }
        if let transaction = error as? PostgresTransactionError {
            for inner in [transaction.beginError, transaction.closureError, transaction.commitError, transaction.rollbackError] {
                if let inner, let state = sqlState(of: inner) { return state }
            }
        }
        return nil
    }

    /// The sentence for a failure to reach the server at all.
    static func connectionFailure(_ error: any Error, host: String, port: Int) -> PostgresOpenFailure? {
        if let channel = error as? ChannelError, case .connectTimeout = channel {
            return .noAnswer(host: host, port: port, seconds: connectTimeout)
        }
        if let connection = error as? NIOConnectionError {
            if connection.connectionErrors.isEmpty { return .unknownHost(host: host) }
            if connection.connectionErrors.contains(where: {
                ($0.error as? ChannelError).map { if case .connectTimeout = $0 { true } else { false } } ?? false
            }) {
                return .noAnswer(host: host, port: port, seconds: connectTimeout)
            }
            return .refused(host: host, port: port)
        }
        if let io = error as? IOError, io.errnoCode == ECONNREFUSED { return .refused(host: host, port: port) }
        return nil
    }
}
