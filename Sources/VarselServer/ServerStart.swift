import Foundation
import Hummingbird
import Synchronization
import VarselLive
import VarselPostgres

/// What `varsel serve` checks and cleans up around a start.
extension Administration {
    /// Checks the numbers `serve` is given that no other check covers; throws a ``Failure`` naming the option.
    public static func checkServeNumbers(port: Int, idleTimeout: Double, streamWriteTimeout: Double, bcryptCost: UInt8) throws {
        guard (0...65535).contains(port) else {
            throw Failure("--port is a number from 1 to 65535, or 0 to pick a free one.")
        }
        for (option, seconds) in [("--idle-timeout", idleTimeout), ("--stream-write-timeout", streamWriteTimeout)]
        where !(seconds > 0 && seconds <= maximumTimeout) {
            throw Failure("\(option) is a number of seconds above 0 and at most \(Int(maximumTimeout)), such as 30.")
        }
        try checkBcryptCost(bcryptCost)
    }

    /// The longest idle or stream write timeout `serve` takes: a day.
    static let maximumTimeout: Double = 86400

    /// Refuses a bcrypt cost the hasher cannot use.
    public static func checkBcryptCost(_ cost: UInt8) throws {
        guard (4...31).contains(cost) else { throw Failure("--bcrypt-cost is a number from 4 to 31, such as 12.") }
    }

    /// Runs the server until it stops, then waits a moment for the streams it finished to close; a port another
    /// program holds is said with the port and the address.
    public static func run(_ app: some ApplicationProtocol, host: String, port: Int) async throws {
        do {
            try await app.runService()
        } catch  where "\(error)".contains("Address already in use") {
            throw Failure("Port \(port) on \(host) is in use by another program: choose another with --port, or stop the other program.")
        }
        // The open streams were finished as the server shut down; their last chunks go out before the process ends.
        await StreamSockets.shared.drained(within: .seconds(2))
    }

    /// Runs a start of the server. If it fails before the server listens, the SQLite database and the demo's data key
    /// file and people's key store that this start made are removed again, and the failure's sentence says so: a start that did not happen
    /// leaves nothing behind. `start` calls the function it is given once the server listens.
    public static func removingWhatAFailedStartMakes(
        database: String, demoKeyFile: String?, personKeyStore: String? = nil,
        _ start: (_ listening: @escaping @Sendable () -> Void) async throws -> Void
    ) async throws {
        var absent = [PostgresRepository.isURL(database) ? nil : database, demoKeyFile].compactMap { $0 }
            .filter { !FileManager.default.fileExists(atPath: $0) }
        // The people's key store goes only with a demo key file made for this start: nothing else is sealed under
        // that key. Another key file's store may hold keys another instance made meanwhile, and is never removed.
        if let demoKeyFile, absent.contains(demoKeyFile), let personKeyStore, !FileManager.default.fileExists(atPath: personKeyStore) {
            absent.append(personKeyStore)
        }
        let listening = ListeningFlag()
        do {
            try await start { listening.value.store(true, ordering: .relaxed) }
        } catch {
            let made = absent.filter { FileManager.default.fileExists(atPath: $0) }
            guard !listening.value.load(ordering: .relaxed), !made.isEmpty else { throw error }
            for path in made {
                for suffix in path == database ? ["", "-wal", "-shm"] : [""] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
            let said = sentence(for: error)
            throw Failure(
                (said.hasSuffix(".") ? String(said.dropLast()) : said)
                    + "; Varsel did not start, so it removed \(listed(made.map(shownName(of:)))), made for this start.")
        }
    }
}

/// `a`, `a and b`, `a, b and c`.
private func listed(_ items: [String]) -> String {
    items.count <= 2 ? items.joined(separator: " and ") : items.dropLast().joined(separator: ", ") + " and " + items.last!
}

/// Whether the server came to listen.
private final class ListeningFlag: Sendable {
    let value = Atomic<Bool>(false)
}
