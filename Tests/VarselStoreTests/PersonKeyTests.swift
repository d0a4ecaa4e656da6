import Foundation
import GRDB
import Logging
import Synchronization
import Testing
import VarselCore
import VarselPostgres
import VarselProcessTesting
import VarselSQLite
import VarselService
import VarselStore

/// A key per person visited: their details sealed under it, the key kept in a key store apart from the database, and
/// destroyed when their details are erased, so that no backup of the database taken before shows them again.
@Suite("A key per person visited")
struct PersonKeyTests {
    /// A data key file and the people's key store beside it, in a new directory.
    static func keys(_ purpose: String) throws -> (data: DataKeyring, people: PersonKeyring, storePath: String) {
        let keyFile = try DataKeyringTests.keyFile(purpose)
        let data = try DataKeyring.create(path: keyFile)
        let storePath = keyFile + ".people"
        return (data, PersonKeyring(store: try PersonKeyFile(path: storePath, creating: true), wrapping: data), storePath)
    }

    static let first = ErasureAtRestTests.details
    static let second = ["Kari Brennhovd-Lie", "Vikaveien 77, 9990 Båtsfjord", "+47 478 11 222", "Ringer på to ganger"]

    /// Assigns a contact with `details`, answers it and marks the visit done with a note naming them; returns the
    /// contact's id.
    static func visit(_ details: [String], in store: any VarselRepository, mentor: User, coordinator: User, clock: ErasureAtRestTests.Clock)
        async throws -> ContactID
    {
        let sender = NotificationSender(repository: store, now: { clock.now })
        let (assignment, contact, _) = try await sender.assign(
            mentor: mentor, coordinatorID: coordinator.id,
            contact: NewContact(name: details[0], phone: details[2], address: details[1], notes: details[3]), urgency: .normal)
        _ = try await store.respond(to: assignment.id, status: .acknowledged, at: clock.now)
        _ = try await store.completeVisit(assignmentID: assignment.id, note: "Besøkte \(details[0]).", at: clock.now)
        return contact.id
    }

    /// Two people visited by one mentor; returns the mentor and the two contacts.
    static func twoPeople(in store: any VarselRepository, clock: ErasureAtRestTests.Clock) async throws -> (User, ContactID, ContactID) {
        let mentor = try await store.createUser(
            NewUser(username: "ola", displayName: "Ola", role: .mentor, passwordHash: "h", language: .norwegianBokmal), at: clock.now)
        let coordinator = try await store.createUser(
            NewUser(username: "coord", displayName: "Coord", role: .coordinator, passwordHash: "h", language: .english), at: clock.now)
        let one = try await visit(first, in: store, mentor: mentor, coordinator: coordinator, clock: clock)
        let two = try await visit(second, in: store, mentor: mentor, coordinator: coordinator, clock: clock)
        return (mentor, one, two)
    }

    static func erasure(_ store: any VarselRepository, clock: ErasureAtRestTests.Clock) -> ContactErasure {
        ContactErasure(repository: store, access: ContactAccess(repository: store, now: { clock.now }), now: { clock.now })
    }

    /// Everything a store answers about `mentor`'s assignments and their people, as one text: the contacts, the
    /// notifications, the event log (what the live stream replays, unless `events` is false), the visit notes and the
    /// report rows.
    static func everythingSaid(_ store: any VarselRepository, mentor: UserID, contacts: [ContactID], events: Bool = true) async throws -> String {
        var said: [String] = []
        for id in contacts {
            if let contact = try await store.contact(id: id) { said += [contact.name, contact.address, contact.phone, contact.notes] }
        }
        for item in try await store.notifications(for: mentor, filter: .all, after: nil, limit: 1000).items {
            said += [item.title, item.body] + item.personalDetails
        }
        for event in events ? try await store.events(for: mentor, after: 0, limit: 10000) : [] {
            if case let .notificationCreated(item) = event.payload { said += [item.title, item.body] + item.personalDetails }
            if case let .notificationUpdated(item) = event.payload { said += [item.title, item.body] + item.personalDetails }
        }
        for row in try await store.assignmentReports(AssignmentListing(scope: .all, mentorID: mentor)) {
            said += [row.contactName, row.contactAddress, row.assignment.visitNote ?? ""]
        }
        return said.joined(separator: "\n")
    }

    static func named(_ details: [String], in text: String) -> [String] {
        details.filter { text.contains($0) }
    }

    // MARK: The keyring

    @Test(
        "a person's value opens to what it sealed, holds none of it, and opens empty once the key is destroyed, which is then in no byte of the key store"
    )
    func sealOpenDestroy() throws {
        let (data, people, storePath) = try Self.keys("person-seal")
        let key = try people.newKey()
        let sealed = try people.seal(Self.first[0], field: .contactName, key: key)
        #expect(!sealed.contains("Olsen") && PersonKeyring.keyID(of: sealed) == key && DataKeyring.keyID(of: sealed) == nil)
        #expect(try people.open(sealed, field: .contactName) == Self.first[0])
        #expect(throws: StoreError.unknownStoredValue(column: "contact.address")) { try people.open(sealed, field: .contactAddress) }
        guard case let .live(wrapped)? = try people.store.state(of: key) else {
            Issue.record("the key store holds the new key")
            return
        }
        let storeBytes = { FileManager.default.contents(atPath: storePath) ?? Data() }
        #expect(storeBytes().range(of: Data(wrapped.utf8)) != nil, "the search finds the wrapped key while it lives")

        let destroyedAt = DemoData.now
        try people.destroy(key, at: destroyedAt)
        try people.destroy(key, at: destroyedAt.addingTimeInterval(60))
        #expect(try people.store.state(of: key) == .destroyed(at: destroyedAt), "destroying twice changes nothing")
        #expect(storeBytes().range(of: Data(wrapped.utf8)) == nil)
        #expect(!FileManager.default.fileExists(atPath: storePath + "-wal") && !FileManager.default.fileExists(atPath: storePath + "-journal"))
        // A keyring that never saw the key (another instance, or a restart) finds it destroyed too.
        let reopened = PersonKeyring(store: try PersonKeyFile(path: storePath, creating: false), wrapping: data)
        #expect(try reopened.open(sealed, field: .contactName) == "")
        #expect(try people.seal("Ny merknad", field: .visitNote, key: key) == "", "nothing new is kept of an erased person")
    }

    @Test("a value under a key the key store never held is refused, naming the key")
    func unknownKey() throws {
        let (_, people, _) = try Self.keys("person-unknown")
        let (_, other, _) = try Self.keys("person-unknown-other")
        let key = try people.newKey()
        let sealed = try people.seal("Per", field: .contactName, key: key)
        #expect(throws: StoreError.personKeyMissing(keyID: key.rawValue)) { try other.open(sealed, field: .contactName) }
        #expect(throws: StoreError.personKeyMissing(keyID: key.rawValue)) { try FieldSealer(nil).open(sealed, field: .contactName) }
    }

    @Test("a data key rotation wraps the people's keys again and leaves their values as they are")
    func rotationRewraps() throws {
        let keyFile = try DataKeyringTests.keyFile("person-rotate")
        let data = try DataKeyring.create(path: keyFile)
        let store = try PersonKeyFile(path: keyFile + ".people", creating: true)
        let people = PersonKeyring(store: store, wrapping: data)
        let key = try people.newKey()
        let sealed = try people.seal(Self.first[1], field: .contactAddress, key: key)
        #expect(try people.wrappingKeyCounts() == [data.currentID: 1])
        let rotated = try DataKeyring.rotate(path: keyFile)
        let after = PersonKeyring(store: store, wrapping: rotated)
        #expect(try after.rewrapStale() == 1)
        #expect(try after.rewrapStale() == 0)
        #expect(try after.wrappingKeyCounts() == [rotated.currentID: 1])
        // Only the new data key is needed now.
        let newOnly = try DataKeyring.retire(path: keyFile, keeping: [])
        #expect(newOnly == [data.currentID])
        let restarted = PersonKeyring(
            store: try PersonKeyFile(path: keyFile + ".people", creating: false), wrapping: try DataKeyring.load(path: keyFile))
        #expect(try restarted.open(sealed, field: .contactAddress) == Self.first[1])
    }

    @Test("a file that is not a people's key store is refused, and none is made before a key is stored in it")
    func keyStoreFileRules() throws {
        let directory = try temporaryDirectory("person-store-file")
        let missing = directory.appendingPathComponent("none.people").path
        #expect(throws: PersonKeyFile.Failure.self) { try PersonKeyFile(path: missing, creating: false) }
        #expect(!FileManager.default.fileExists(atPath: missing))
        let other = directory.appendingPathComponent("other.sqlite").path
        try DatabaseQueue(path: other).write { try $0.execute(sql: "CREATE TABLE t (x)") }
        #expect(throws: PersonKeyFile.Failure.self) { try PersonKeyFile(path: other, creating: false) }
        let made = directory.appendingPathComponent("made.people").path
        let store = try PersonKeyFile(path: made, creating: true)
        #expect(try store.counts() == (0, 0) && store.wrappedKeys().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: made), "reading an empty key store makes no file")
        _ = try PersonKeyring(store: store, wrapping: try DataKeyring.create(path: made + ".key")).newKey()
        #expect(try FileManager.default.attributesOfItem(atPath: made)[.posixPermissions] as? Int == 0o600)
        #expect(try PersonKeyFile(path: made, creating: false).counts() == (1, 0))
    }

    // MARK: Restored backups

    /// A backup of the store as it is, erasing the first person on the live store, then the backup served with the
    /// current key store: the first person is nowhere, the second reads as before. `restore` turns the backup into a
    /// store opened with the current keys.
    static func expectBackupStaysForgotten(
        live: any VarselRepository, backup: () async throws -> Void, restore: () async throws -> any VarselRepository,
        restoredBytes: () async throws -> Data, keyStorePath: String?
    ) async throws {
        let clock = ErasureAtRestTests.Clock()
        let (mentor, one, two) = try await Self.twoPeople(in: live, clock: clock)
        let before = try await Self.everythingSaid(live, mentor: mentor.id, contacts: [one, two])
        #expect(Self.named(Self.first, in: before) == Self.first && Self.named(Self.second, in: before) == Self.second)
        try await backup()

        clock.advance(days: 1)
        try await Self.erasure(live, clock: clock).erase(contactID: one, by: try #require(try await live.user(username: "coord")))
        if let keyStorePath {
            #expect(ErasureAtRestTests.found(in: FileManager.default.contents(atPath: keyStorePath) ?? Data()) == [])
        }

        let restored = try await restore()
        // Nothing of the erased person opens, even before the restored rows are brought in step with the key store
        // (which a server does before it serves): the event log's copies under the destroyed key replay as deletions.
        let unopened = try await Self.everythingSaid(restored, mentor: mentor.id, contacts: [one, two])
        #expect(Self.named(Self.first, in: unopened) == [])
        #expect(Self.named(Self.second, in: unopened) == Self.second)

        #expect(try await Self.erasure(restored, clock: clock).eraseForgotten() == 1)
        #expect(try await Self.erasure(restored, clock: clock).eraseForgotten() == 0, "erasing again changes nothing")
        let after = try await Self.everythingSaid(restored, mentor: mentor.id, contacts: [one, two])
        #expect(Self.named(Self.first, in: after) == [])
        #expect(Self.named(Self.second, in: after) == Self.second)
        let erased = try #require(try await restored.contact(id: one))
        #expect(erased.erasedAt == clock.now && erased.name.isEmpty)
        let titles = try await restored.notifications(for: mentor.id, filter: .kind(.assignment), after: nil, limit: 10).items.map(\.title)
        #expect(titles.sorted() == [Strings(.norwegianBokmal).detailsRemovedTitle, Strings(.norwegianBokmal).newAssignmentTitle].sorted())
        #expect(ErasureAtRestTests.found(in: try await restoredBytes()).isEmpty)
        #expect(Self.named(Self.second, in: String(decoding: try await restoredBytes(), as: UTF8.self)) == [])
    }

    @Test("SQLite: a backup taken before an erasure, restored with today's key store, shows the erased person nowhere and the other as before")
    func sqliteRestoredBackupStaysForgotten() async throws {
        let (data, people, storePath) = try Self.keys("person-backup-sqlite")
        let path = try temporarySQLitePath("person-backup")
        let copy = path + ".backup"
        let live = try SQLiteRepository(path: path, keys: data, personKeys: people)
        try await Self.expectBackupStaysForgotten(
            live: live,
            backup: { try DatabaseQueue(path: path).backup(to: DatabaseQueue(path: copy)) },
            restore: {
                let reopened = PersonKeyring(
                    store: try PersonKeyFile(path: storePath, creating: false), wrapping: try DataKeyring.load(path: data.path!))
                return try SQLiteRepository(path: copy, keys: try DataKeyring.load(path: data.path!), personKeys: reopened)
            },
            restoredBytes: { ErasureAtRestTests.fileBytes(copy) }, keyStorePath: storePath)
    }

    @Test(
        "PostgreSQL: a pg_dump taken before an erasure, restored with pg_restore and today's key store, shows the erased person nowhere",
        .enabled(if: PostgresTestDatabase.serverURL != nil))
    func postgresRestoredBackupStaysForgotten() async throws {
        let (data, people, storePath) = try Self.keys("person-backup-postgres")
        let live = try await PostgresTestDatabase.make(keys: data, personKeys: people)
        defer { live.shutdown() }
        let dumpFile = try temporaryDirectory("person-dump").appendingPathComponent("varsel.dump").path
        var restoredURL = ""
        try await Self.expectBackupStaysForgotten(
            live: live,
            backup: {
                try await PostgresTools.run("pg_dump", ["--dbname=\(live.urlForTests)", "--no-owner", "--format=custom", "--file=\(dumpFile)"])
            },
            restore: {
                restoredURL = try await PostgresTestDatabase.makeEmpty()
                try await PostgresTools.run("pg_restore", ["--dbname=\(restoredURL)", "--no-owner", dumpFile])
                let reopened = PersonKeyring(
                    store: try PersonKeyFile(path: storePath, creating: false), wrapping: try DataKeyring.load(path: data.path!))
                return try await PostgresRepository(
                    url: restoredURL, logger: Logger(label: "test"), keys: try DataKeyring.load(path: data.path!), personKeys: reopened,
                    operationTimeout: PostgresTestDatabase.operationTimeout, idleTransactionTimeout: PostgresTestDatabase.idleTransactionTimeout)
            },
            restoredBytes: { try await ErasureAtRestTests.dump(restoredURL) }, keyStorePath: storePath)
    }

    @Test("a store opened with a key store that is not its own is refused before anything changes, naming the key")
    func foreignKeyStoreRefused() async throws {
        let (data, people, _) = try Self.keys("person-foreign")
        let path = try temporarySQLitePath("person-foreign")
        let clock = ErasureAtRestTests.Clock()
        let (mentor, one, _) = try await Self.twoPeople(in: try SQLiteRepository(path: path, keys: data, personKeys: people), clock: clock)
        let foreign = PersonKeyring(store: try PersonKeyFile(path: path + ".foreign.people", creating: true), wrapping: data)
        let store = try SQLiteRepository(path: path, keys: data, personKeys: foreign)
        await #expect(throws: StoreError.self) { try await Self.erasure(store, clock: clock).eraseForgotten() }
        await #expect(throws: StoreError.self) { _ = try await store.contact(id: one) }
        let again = try SQLiteRepository(path: path, keys: data, personKeys: people)
        #expect(Self.named(Self.first, in: try await Self.everythingSaid(again, mentor: mentor.id, contacts: [one])) == Self.first)
    }

    @Test("a deleted notification's copies in the event log, under an erased person's key, replay as its deletion")
    func deletedNotificationsCopies() async throws {
        let (data, people, _) = try Self.keys("person-deleted")
        let store = try SQLiteRepository(path: try temporarySQLitePath("person-deleted"), keys: data, personKeys: people)
        let clock = ErasureAtRestTests.Clock()
        let (mentor, one, two) = try await Self.twoPeople(in: store, clock: clock)
        let notificationID = try #require(try await store.assignments(AssignmentListing(scope: .all, contactID: one)).first?.notificationID)
        #expect(try await store.delete(ids: [notificationID], userID: mentor.id, at: clock.now) == 1)
        try await Self.erasure(store, clock: clock).erase(contactID: one, by: try #require(try await store.user(username: "coord")))

        let replayed = try await store.events(for: mentor.id, after: 0, limit: 1000)
        let aboutIt = replayed.filter { $0.payload.notificationID == notificationID }.map(\.payload)
        #expect(aboutIt.count >= 2 && aboutIt.allSatisfy { $0 == .notificationDeleted(notificationID: notificationID) })
        let said = try await Self.everythingSaid(store, mentor: mentor.id, contacts: [one, two])
        #expect(Self.named(Self.first, in: said) == [] && Self.named(Self.second, in: said) == Self.second)
    }

    // MARK: Moving over

    /// 200 people stored under the data key move to keys of their own, a batch at a time, across an interruption;
    /// `open` opens the same database with the data key and, when given, the people's keys.
    static func expectPeopleMoveOver(
        _ purpose: String, open: (DataKeyring, PersonKeyring?) async throws -> any VarselRepository
    ) async throws {
        let (data, people, _) = try Self.keys(purpose)
        let clock = ErasureAtRestTests.Clock()
        let before = try await open(data, nil)
        let mentor = try await before.createUser(
            NewUser(username: "ola", displayName: "Ola", role: .mentor, passwordHash: "h", language: .english), at: clock.now)
        let coordinator = try await before.createUser(
            NewUser(username: "coord", displayName: "Coord", role: .coordinator, passwordHash: "h", language: .english), at: clock.now)
        var contacts: [ContactID] = []
        for index in 0..<200 {
            let details = ["Person \(index) Nordmann", "Gate \(index), 0183 Oslo", "+47 900 00 \(String(format: "%03d", index))", "Merknad \(index)"]
            contacts.append(try await Self.visit(details, in: before, mentor: mentor, coordinator: coordinator, clock: clock))
        }
        let expected = try await Self.everythingSaid(before, mentor: mentor.id, contacts: contacts)

        let moving = try await open(data, people)
        #expect(try await moving.peopleKeyCounts() == PeopleKeyCounts(ownKeys: 0, underDataKey: 200))
        #expect(try await moving.movePeopleToTheirKeys(limit: 70) == 70)
        // The process stops here: a key made for the next person, whose move never committed, is left in the key store.
        _ = try people.newKey()
        #expect(try await moving.peopleKeyCounts() == PeopleKeyCounts(ownKeys: 70, underDataKey: 130))

        let restarted = try await open(
            try DataKeyring.load(path: data.path!),
            PersonKeyring(store: try PersonKeyFile(path: data.path! + ".people", creating: false), wrapping: data))
        // Served while the rest moves, a batch at a time as the upkeep does: every read in between says what it said.
        var moved = 0
        while true {
            let batch = try await restarted.movePeopleToTheirKeys(limit: 25)
            moved += batch
            #expect(try await Self.everythingSaid(restarted, mentor: mentor.id, contacts: contacts) == expected)
            if batch < 25 { break }
        }
        #expect(moved == 130)
        #expect(try await restarted.movePeopleToTheirKeys(limit: 100) == 0)

        // The data key alone opens no detail of any person now: a store without the key store cannot read them.
        let dataKeyOnly = try await open(data, nil)
        #expect(try await dataKeyOnly.sealedValueCounts() == [data.currentID: 1], "the data key seals only the database's key check")
        await #expect(throws: StoreError.self) { _ = try await dataKeyOnly.contact(id: contacts[0]) }
        #expect(try people.store.counts().live == 201)
    }

    @Test(
        "SQLite: 200 people stored under the data key move to keys of their own while the store serves, across an interruption; the data key then opens nothing of theirs"
    )
    func sqliteMovesPeopleOver() async throws {
        let path = try temporarySQLitePath("person-move")
        try await Self.expectPeopleMoveOver("person-move-sqlite") { data, people in
            try SQLiteRepository(path: path, keys: data, personKeys: people)
        }
    }

    @Test(
        "PostgreSQL: 200 people stored under the data key move to keys of their own, across an interruption",
        .enabled(if: PostgresTestDatabase.serverURL != nil))
    func postgresMovesPeopleOver() async throws {
        let url = try await PostgresTestDatabase.makeEmpty()
        let opened = Mutex<[PostgresRepository]>([])
        defer { for store in opened.withLock({ $0 }) { store.shutdown() } }
        try await Self.expectPeopleMoveOver("person-move-postgres") { data, people in
            let store = try await PostgresRepository(
                url: url, logger: Logger(label: "test"), keys: data, personKeys: people, operationTimeout: PostgresTestDatabase.operationTimeout,
                idleTransactionTimeout: PostgresTestDatabase.idleTransactionTimeout)
            opened.withLock { $0.append(store) }
            return store
        }
    }
}

/// PostgreSQL's own programs, of the newest version installed.
enum PostgresTools {
    /// The program's path in the newest PostgreSQL installed.
    static func path(of program: String) throws -> URL {
        let binaries = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard let version = binaries.sorted().last else { throw CocoaError(.fileNoSuchFile) }
        return URL(fileURLWithPath: "/usr/lib/postgresql/\(version)/bin/\(program)")
    }

    /// Runs `program` to its end and answers what it wrote to its standard output; a failure is a test failure.
    @discardableResult
    static func run(_ program: String, _ arguments: [String]) async throws -> Data {
        let ended = try await ChildProcess.run(try path(of: program), arguments)
        #expect(ended.succeeded, "\(program) failed")
        return ended.output
    }
}
