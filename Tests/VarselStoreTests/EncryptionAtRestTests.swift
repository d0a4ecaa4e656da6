import Foundation
import Logging
import Testing
import VarselCore
import VarselPostgres
import VarselSQLite
import VarselService
import VarselStore

/// The data key file: its format, its refusals, rotation and retirement.
@Suite("Data keys")
struct DataKeyringTests {
    static func keyFile(_ purpose: String) throws -> String {
        try temporaryDirectory(purpose).appendingPathComponent("data.key").path
    }

    @Test("a sealed value opens to the text it sealed, holds none of it, and differs each time")
    func sealsAndOpens() throws {
        let keys = try DataKeyring.create(path: try Self.keyFile("seal"))
        let text = "Kari Nordmann, Storgata 1"
        let sealed = keys.seal(text, field: .contactName)
        #expect(!sealed.contains("Kari") && !sealed.contains("Storgata"))
        #expect(DataKeyring.keyID(of: sealed) == keys.currentID)
        #expect(keys.seal(text, field: .contactName) != sealed, "a fresh nonce each time")
        #expect(try keys.open(sealed, field: .contactName) == text)
        #expect(keys.seal("", field: .contactName) == "", "the empty text names no one and stays empty")
        #expect(try keys.open("stored before encryption began", field: .contactName) == "stored before encryption began")
    }

    @Test("a value moved to another column does not open: each field is its own associated data")
    func fieldIsBound() throws {
        let keys = try DataKeyring.create(path: try Self.keyFile("bound"))
        let sealed = keys.seal("+47 912 00 111", field: .contactPhone)
        #expect(throws: StoreError.unknownStoredValue(column: "contact.address")) { try keys.open(sealed, field: .contactAddress) }
    }

    @Test("a value sealed under a key the file does not hold is refused, naming the key and nothing else")
    func unknownKey() throws {
        let first = try DataKeyring.create(path: try Self.keyFile("first"))
        let second = try DataKeyring.create(path: try Self.keyFile("second"))
        let sealed = first.seal("Per", field: .contactName)
        #expect(throws: StoreError.dataKeyMissing(keyID: first.currentID)) { try second.open(sealed, field: .contactName) }
        #expect(throws: StoreError.dataKeyMissing(keyID: first.currentID)) { try FieldSealer.none.open(sealed, field: .contactName) }
    }

    @Test("the key file is its owner's alone, is never replaced, and a bad one is refused in one sentence")
    func fileRules() throws {
        let path = try Self.keyFile("file")
        try DataKeyring.create(path: path)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(throws: DataKeyring.Failure("The data key file \(path) already exists; Varsel never replaces a key file.")) {
            try DataKeyring.create(path: path)
        }
        let missing = path + ".missing"
        #expect(
            throws: DataKeyring.Failure(
                "The data key file \(missing) does not exist; make one with `varsel keys create --data-key-file \(missing)`.")
        ) {
            try DataKeyring.load(path: missing)
        }
        let bad = path + ".bad"
        #expect(FileManager.default.createFile(atPath: bad, contents: Data("# a comment\n0123abcd not-base64\n".utf8)))
        #expect(throws: DataKeyring.Failure("Line 2 of the data key file \(bad) is not a key id followed by 32 bytes in base64.")) {
            try DataKeyring.load(path: bad)
        }
        #expect(FileManager.default.createFile(atPath: bad, contents: Data("# nothing\n".utf8)))
        #expect(throws: DataKeyring.Failure("The data key file \(bad) holds no key.")) { try DataKeyring.load(path: bad) }
    }

    @Test("rotating puts a new key first and keeps the old; a keyring that read the file before opens the new key's values")
    func rotation() throws {
        let path = try Self.keyFile("rotate")
        let running = try DataKeyring.create(path: path)
        let old = running.currentID
        let rotated = try DataKeyring.rotate(path: path)
        #expect(rotated.ids.count == 2 && rotated.ids[1] == old && rotated.currentID != old)
        #expect(try rotated.open(running.seal("Per", field: .visitNote), field: .visitNote) == "Per")
        // Another instance, still on the file as it was, meets a value sealed under the new key: it reads the file again.
        #expect(try running.open(rotated.seal("Ola", field: .visitNote), field: .visitNote) == "Ola")
        #expect(running.currentID == rotated.currentID)
        #expect(try DataKeyring.retire(path: path, keeping: [old]) == [])
        #expect(try DataKeyring.retire(path: path, keeping: []) == [old])
        #expect(try DataKeyring.load(path: path).ids == [rotated.currentID])
    }
}

/// With a data key, the details of the people mentors visit never reach the database file or a dump in plain text,
/// and read back as they were written.
@Suite("Personal details encrypted at rest")
struct EncryptionAtRestTests {
    static let details = ErasureAtRestTests.details
    static let reflection = "Jeg tenkte på Per Olsen-Haugland hele dagen"

    /// What was stored, to read back.
    struct Stored {
        var contactID: ContactID
        var mentorID: UserID
        var liveAssignmentID: AssignmentID
        var doneAssignmentID: AssignmentID
    }

    /// Two assignments with the recognisable details (one live, one done with a note naming the person) and a
    /// scenario reflection naming them.
    static func fill(_ store: any VarselRepository) async throws -> Stored {
        let clock = ErasureAtRestTests.Clock()
        let sender = NotificationSender(repository: store, now: { clock.now })
        let mentor = try await store.createUser(
            NewUser(username: "ola", displayName: "Ola", role: .mentor, passwordHash: "h", language: .norwegianBokmal),
            at: clock.now)
        let coordinator = try await store.createUser(
            NewUser(
                username: "coord", displayName: "Coord", role: .coordinator, passwordHash: "h",
                language: .english), at: clock.now)
        let contact = NewContact(name: details[0], phone: details[2], address: details[1], notes: details[3])
        let (done, stored, _) = try await sender.assign(mentor: mentor, coordinatorID: coordinator.id, contact: contact, urgency: .normal)
        _ = try await store.respond(to: done.id, status: .acknowledged, at: clock.now)
        _ = try await store.completeVisit(assignmentID: done.id, note: "Besøkte \(details[0]); alt vel.", at: clock.now)
        let (live, _, _) = try await sender.assign(mentor: mentor, coordinatorID: coordinator.id, contact: contact, urgency: .urgent)
        let (scenario, _) = try await store.publishScenario(
            title: "Øvelse", body: "Tenk gjennom besøket.", coordinatorID: coordinator.id,
            mentorIDs: [mentor.id], at: clock.now
        ) { scenarioID, mentorID in
            NewNotification(
                recipientID: mentorID, senderID: coordinator.id, kind: .scenarioPrompt, title: "Øvelse", body: "",
                deepLink: .scenario(scenarioID: scenarioID))
        }
        _ = try await store.completeScenario(scenarioID: scenario.id, mentorID: mentor.id, reflection: reflection, at: clock.now)
        return Stored(contactID: stored.id, mentorID: mentor.id, liveAssignmentID: live.id, doneAssignmentID: done.id)
    }

    /// Every detail reads back as written: the contact, the notification's body and personal details, the event
    /// log's copy, the visit note and the reflection.
    static func expectReadsBack(_ store: any VarselRepository, _ stored: Stored) async throws {
        let contact = try #require(try await store.contact(id: stored.contactID))
        #expect([contact.name, contact.address, contact.phone, contact.notes] == [details[0], details[1], details[2], details[3]])
        let items = try await store.notifications(for: stored.mentorID, filter: .kind(.assignment), after: nil, limit: 10).items
        #expect(items.count == 2)
        #expect(items.allSatisfy { $0.body.contains(details[0]) && $0.personalDetails.contains(details[0]) })
        let created = try await store.events(for: stored.mentorID, after: 0, limit: 100).compactMap { event -> NotificationItem? in
            if case let .notificationCreated(item) = event.payload, item.kind == .assignment { return item }
            return nil
        }
        #expect(created.count == 2 && created.allSatisfy { $0.personalDetails == [details[0], details[1], details[2]] })
        #expect(try await store.assignment(id: stored.doneAssignmentID)?.visitNote == "Besøkte \(details[0]); alt vel.")
        #expect(try await store.scenarios(forMentor: stored.mentorID).first?.reflection == reflection)
    }

    static func found(in bytes: Data) -> [String] {
        (details + ["Olsen-Haugland"]).filter { bytes.range(of: Data($0.utf8)) != nil }
    }

    @Test("with a data key, a live assignment's details are in no byte of the SQLite file or its WAL, and read back as written")
    func sqliteFileHoldsNoDetail() async throws {
        let path = try temporarySQLitePath("encrypted")
        let keyFile = path + ".key"
        let keys = try DataKeyring.create(path: keyFile)
        let store = try SQLiteRepository(path: path, keys: keys)
        let stored = try await Self.fill(store)
        #expect(Self.found(in: ErasureAtRestTests.fileBytes(path)) == [])
        try await Self.expectReadsBack(store, stored)
        #expect(try await store.sealedValueCounts()[keys.currentID, default: 0] >= 10)
    }

    @Test("without a data key the search finds the details in the file (the search works)")
    func sqliteFileWithoutKeyHoldsDetails() async throws {
        let path = try temporarySQLitePath("plain")
        let store = try SQLiteRepository(path: path)
        _ = try await Self.fill(store)
        #expect(Self.found(in: ErasureAtRestTests.fileBytes(path)).count == 5)
    }

    @Test("an encrypted database is refused without its key file, and with a key file that lacks its key")
    func refusedWithoutTheKey() async throws {
        let path = try temporarySQLitePath("refused")
        let keys = try DataKeyring.create(path: path + ".key")
        _ = try await Self.fill(try SQLiteRepository(path: path, keys: keys))
        #expect(throws: StoreError.dataKeyRequired) { try SQLiteRepository(path: path) }
        let other = try DataKeyring.create(path: path + ".other.key")
        #expect(throws: StoreError.dataKeyMissing(keyID: keys.currentID)) { try SQLiteRepository(path: path, keys: other) }
        // The account commands open it without the key: they never touch the details.
        #expect(try await SQLiteRepository(path: path, checksDataKey: false).user(username: "ola") != nil)
        #expect(
            StoreError.dataKeyRequired.description
                == "This database's personal details are encrypted; start Varsel with --data-key-file naming the file that holds its key.")
    }

    @Test("a rotation re-encrypts everything under the new key while another instance keeps reading; then the old key retires")
    func rotationWhileRunning() async throws {
        let path = try temporarySQLitePath("rotation")
        let keyFile = path + ".key"
        let running = try SQLiteRepository(path: path, keys: try DataKeyring.create(path: keyFile))
        let old = try DataKeyring.load(path: keyFile).currentID
        let stored = try await Self.fill(running)

        let rotated = try DataKeyring.rotate(path: keyFile)
        let rotating = try SQLiteRepository(path: path, keys: rotated)
        #expect(try await rotating.resealAllStale(batch: 3) >= 10)
        #expect(try await rotating.sealedValueCounts().keys.sorted() == [rotated.currentID])
        #expect(try await rotating.resealAllStale() == 0)
        // The running instance read the key file before the rotation: it reads it again on meeting the new key.
        try await Self.expectReadsBack(running, stored)

        #expect(try DataKeyring.retire(path: keyFile, keeping: Set(try await rotating.sealedValueCounts().keys)) == [old])
        let restarted = try SQLiteRepository(path: path, keys: try DataKeyring.load(path: keyFile))
        try await Self.expectReadsBack(restarted, stored)
        #expect(Self.found(in: ErasureAtRestTests.fileBytes(path)) == [])
    }

    @Test("a database written before encryption began is encrypted by the first upkeep with a key, and reads the same")
    func plainDatabaseIsSealedLater() async throws {
        let path = try temporarySQLitePath("legacy")
        let stored = try await Self.fill(try SQLiteRepository(path: path))
        #expect(!Self.found(in: ErasureAtRestTests.fileBytes(path)).isEmpty)
        let keys = try DataKeyring.create(path: path + ".key")
        let store = try SQLiteRepository(path: path, keys: keys)
        try await Self.expectReadsBack(store, stored)
        #expect(try await store.resealAllStale() >= 10)
        #expect(Self.found(in: ErasureAtRestTests.fileBytes(path)) == [])
        try await Self.expectReadsBack(store, stored)
    }

    @Test(
        "with a data key, a pg_dump holds none of a live assignment's details, which read back as written; without the key the database is refused",
        .enabled(if: PostgresTestDatabase.serverURL != nil))
    func postgresDumpHoldsNoDetail() async throws {
        let keyFile = try DataKeyringTests.keyFile("postgres")
        let keys = try DataKeyring.create(path: keyFile)
        let store = try await PostgresTestDatabase.make(keys: keys)
        defer { store.shutdown() }
        let stored = try await Self.fill(store)
        #expect(Self.found(in: try await ErasureAtRestTests.dump(store.urlForTests)) == [])
        try await Self.expectReadsBack(store, stored)

        await #expect(throws: StoreError.dataKeyRequired) {
            try await PostgresRepository(
                url: store.urlForTests, logger: Logger(label: "test"), operationTimeout: PostgresTestDatabase.operationTimeout,
                idleTransactionTimeout: PostgresTestDatabase.idleTransactionTimeout
            ).shutdown()
        }
        let rotated = try DataKeyring.rotate(path: keyFile)
        let rotating = try await PostgresRepository(
            url: store.urlForTests, logger: Logger(label: "test"), keys: rotated, operationTimeout: PostgresTestDatabase.operationTimeout,
            idleTransactionTimeout: PostgresTestDatabase.idleTransactionTimeout)
        defer { rotating.shutdown() }
        #expect(try await rotating.resealAllStale(batch: 4) >= 10)
        #expect(try await rotating.sealedValueCounts().keys.sorted() == [rotated.currentID])
        try await Self.expectReadsBack(store, stored)
    }

    @Test(
        "a PostgreSQL database written before encryption began is encrypted by the first upkeep with a key",
        .enabled(if: PostgresTestDatabase.serverURL != nil))
    func postgresPlainDatabaseIsSealedLater() async throws {
        let plain = try await PostgresTestDatabase.make()
        defer { plain.shutdown() }
        let stored = try await Self.fill(plain)
        #expect(!Self.found(in: try await ErasureAtRestTests.dump(plain.urlForTests)).isEmpty)
        let keys = try DataKeyring.create(path: try DataKeyringTests.keyFile("postgres-legacy"))
        let store = try await PostgresRepository(
            url: plain.urlForTests, logger: Logger(label: "test"), keys: keys, operationTimeout: PostgresTestDatabase.operationTimeout,
            idleTransactionTimeout: PostgresTestDatabase.idleTransactionTimeout)
        defer { store.shutdown() }
        #expect(try await store.resealAllStale() >= 10)
        #expect(Self.found(in: try await ErasureAtRestTests.dump(plain.urlForTests)) == [])
        try await Self.expectReadsBack(store, stored)
    }
}
