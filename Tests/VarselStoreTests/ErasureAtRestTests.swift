import Foundation
import Logging
import Synchronization
import Testing
import VarselCore
import VarselPostgres
import VarselSQLite
import VarselService
import VarselStore

/// Once a visited person's details are erased, they are nowhere: not in any table, not in SQLite's file bytes
/// (the write-ahead log included), not in a PostgreSQL dump.
@Suite("Erased details are gone from the file and the dump")
struct ErasureAtRestTests {
    final class Clock: Sendable {
        private let current = Mutex(DemoData.now)
        var now: Date { current.withLock { $0 } }
        func advance(days: Double) { current.withLock { $0 = $0.addingTimeInterval(days * 86400) } }
    }

    /// Recognisable details, each unlikely to occur by chance in a database file.
    static let details = ["Per Olsen-Haugland", "Torggata 3B, 0183 Oslo", "+47 912 00 111", "Nøkkel under matta, hører dårlig"]

    /// Makes an assignment with the details, answers it, marks the visit done with a note naming the person, and
    /// returns the upkeep that runs with `clock`.
    static func closedVisit(in store: any VarselRepository, clock: Clock) async throws -> (MaintenanceService, ContactID) {
        let sender = NotificationSender(repository: store, now: { clock.now })
        let mentor = try await store.createUser(
            NewUser(username: "ola", displayName: "Ola", role: .mentor, passwordHash: "h", language: .norwegianBokmal),
            at: clock.now)
        let coordinator = try await store.createUser(
            NewUser(
                username: "coord", displayName: "Coord", role: .coordinator, passwordHash: "h",
                language: .english), at: clock.now)
        let (assignment, contact, _) = try await sender.assign(
            mentor: mentor, coordinatorID: coordinator.id,
            contact: NewContact(
                name: details[0], phone: details[2], address: details[1], notes: details[3]), urgency: .normal)
        _ = try await store.respond(to: assignment.id, status: .acknowledged, at: clock.now)
        _ = try await store.completeVisit(assignmentID: assignment.id, note: "Besøkte \(details[0]); alt vel.", at: clock.now)
        let upkeep = MaintenanceService(
            repository: store, sender: sender,
            erasure: ContactErasure(repository: store, access: ContactAccess(repository: store, now: { clock.now }), now: { clock.now }),
            now: { clock.now }, contactRetention: 90 * 86400, logger: Logger(label: "test"))
        return (upkeep, contact.id)
    }

    /// The bytes of the database file and its `-wal` and `-shm` companions.
    static func fileBytes(_ path: String) -> Data {
        ["", "-wal", "-shm"].compactMap { FileManager.default.contents(atPath: path + $0) }.reduce(Data(), +)
    }

    static func found(in bytes: Data) -> [String] {
        details.filter { bytes.range(of: Data($0.utf8)) != nil } + (bytes.range(of: Data("Olsen-Haugland".utf8)) != nil ? ["Olsen-Haugland"] : [])
    }

    @Test("after the retention time, upkeep erases the details from every table and from the SQLite file and its WAL")
    func sqliteFileHoldsNoErasedDetail() async throws {
        let path = try temporarySQLitePath("erasure")
        let store = try SQLiteRepository(path: path)
        let clock = Clock()
        let (upkeep, contactID) = try await Self.closedVisit(in: store, clock: clock)
        #expect(!Self.found(in: Self.fileBytes(path)).isEmpty, "the details are in the file before erasure (the search works)")

        clock.advance(days: 89)
        await upkeep.runOnce()
        #expect(try await store.contact(id: contactID)?.erasedAt == nil, "kept until the retention time has passed")
        clock.advance(days: 2)
        await upkeep.runOnce()
        #expect(try await store.contact(id: contactID)?.erasedAt == clock.now)
        #expect(Self.found(in: Self.fileBytes(path)) == [])
        // The notification is still there, saying what happened.
        let items = try await store.notifications(for: 1, filter: .all, after: nil, limit: 10).items
        #expect(items.first { $0.kind == .assignment }?.title == "Opplysningene er fjernet")
    }

    @Test(
        "after the retention time, a pg_dump of the database holds none of the details",
        .enabled(if: PostgresTestDatabase.serverURL != nil))
    func postgresDumpHoldsNoErasedDetail() async throws {
        let store = try await PostgresTestDatabase.make()
        defer { store.shutdown() }
        let clock = Clock()
        let (upkeep, contactID) = try await Self.closedVisit(in: store, clock: clock)
        #expect(!Self.found(in: try await Self.dump(store.urlForTests)).isEmpty, "the details are in the dump before erasure (the dump works)")
        clock.advance(days: 91)
        await upkeep.runOnce()
        #expect(try await store.contact(id: contactID)?.erasedAt == clock.now)
        #expect(Self.found(in: try await Self.dump(store.urlForTests)) == [])
    }

    /// `pg_dump` of the database at `url`, as text.
    static func dump(_ url: String) async throws -> Data {
        try await PostgresTools.run("pg_dump", ["--dbname=\(url)", "--no-owner"])
    }
}
