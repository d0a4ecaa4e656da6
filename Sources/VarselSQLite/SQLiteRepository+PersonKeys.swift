import Foundation
import GRDB
import VarselCore
import VarselStore

/// The keys of the people mentors visit (``PersonKeyring``): which key a value is sealed under, and keeping erasures
/// and the key store in step.
extension SQLiteRepository {
    /// The key of the person a notification's personal details are about, when people have keys: an assignment's
    /// notification links to its contact.
    func personKey(for deepLink: DeepLinkTarget, details: [String], db: Database) throws -> PersonKeyID? {
        guard let contactID = sealer.personSealing(deepLink: deepLink, details: details) else { return nil }
        return try personKey(contactID: contactID, db: db)
    }

    /// The key contact `contactID`'s details are sealed under, when people have keys and it has one.
    func personKey(contactID: ContactID, db: Database) throws -> PersonKeyID? {
        guard sealer.people != nil else { return nil }
        return try String.fetchOne(db, sql: "SELECT key_id FROM contact WHERE id = ?", arguments: [contactID]).flatMap(PersonKeyID.init(rawValue:))
    }

    public func erasePeopleWithDestroyedKeys(titles: [Language: String], at date: Date) async throws -> Int {
        guard let people = sealer.people else { return 0 }
        let rows = try read { db in
            try Row.fetchAll(db, sql: "SELECT id, key_id, erased_at IS NOT NULL AS erased FROM contact WHERE key_id IS NOT NULL ORDER BY id")
                .compactMap { row in
                    PersonKeyID(rawValue: row["key_id"]).map { ContactKeyRow(contactID: row["id"], key: $0, isErased: row["erased"]) }
                }
        }
        let forgotten = try people.reconcile(rows, at: date)
        for person in forgotten { _ = try await eraseContact(contactID: person.contactID, titles: titles, at: person.destroyedAt) }
        return forgotten.count
    }
}

extension SQLiteRepository {
    public func movePeopleToTheirKeys(limit: Int) async throws -> Int {
        guard let people = sealer.people else { return 0 }
        let waiting = try read { db in
            try ContactID.fetchAll(
                db, sql: "SELECT id FROM contact WHERE key_id IS NULL AND erased_at IS NULL ORDER BY id LIMIT ?", arguments: [limit])
        }
        for contactID in waiting {
            // The key is in the key store before anything is sealed under it; one the transaction ends up not using
            // (another instance moved the person first) seals nothing.
            let key = try people.newKey()
            try await commits.write { db in try self.move(contactID, to: key, db: db) }
        }
        // The values as they were must not linger in the write-ahead log.
        if !waiting.isEmpty { _ = try? await writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") } }
        return waiting.count
    }

    /// Seals contact `contactID`'s details, its visit notes, and its assignments' notifications and their copies in the
    /// event log under `key`, unless it has a key already.
    private func move(_ contactID: ContactID, to key: PersonKeyID, db: Database) throws {
        guard let contact = try Row.fetchOne(db, sql: "SELECT * FROM contact WHERE id = ? AND key_id IS NULL", arguments: [contactID]) else { return }
        let reseal = { (stored: String, field: SealedField) throws -> String in
            try self.sealer.seal(try self.sealer.open(stored, field: field), field: field, person: key)
        }
        try db.execute(
            sql: "UPDATE contact SET name = ?, phone = ?, address = ?, notes = ?, key_id = ? WHERE id = ?",
            arguments: [
                try reseal(contact["name"], .contactName), try reseal(contact["phone"], .contactPhone),
                try reseal(contact["address"], .contactAddress), try reseal(contact["notes"], .contactNotes), key.rawValue, contactID,
            ])
        for row in try Row.fetchAll(
            db, sql: "SELECT id, visit_note FROM assignment WHERE contact_id = ? AND visit_note IS NOT NULL AND visit_note <> ''",
            arguments: [contactID])
        {
            try db.execute(
                sql: "UPDATE assignment SET visit_note = ? WHERE id = ?", arguments: [try reseal(row["visit_note"], .visitNote), row["id"] as Int64])
        }
        let notifications = try Row.fetchAll(
            db,
            sql: """
                SELECT notification.id, notification.body, notification.personal_details FROM assignment
                JOIN notification ON notification.id = assignment.notification_id
                WHERE assignment.contact_id = ? AND notification.personal_details <> '[]'
                """, arguments: [contactID])
        for row in notifications {
            let id: NotificationID = row["id"]
            try db.execute(
                sql: "UPDATE notification SET body = ?, personal_details = ? WHERE id = ?",
                arguments: [try reseal(row["body"], .notificationBody), try reseal(row["personal_details"], .notificationDetails), id])
            for event in try Row.fetchAll(
                db, sql: "SELECT id, notification FROM event WHERE notification_id = ? AND notification IS NOT NULL", arguments: [id])
            {
                try db.execute(
                    sql: "UPDATE event SET notification = ? WHERE id = ?",
                    arguments: [try reseal(event["notification"], .eventNotification), event["id"] as Int64])
            }
        }
    }

    public func peopleKeyCounts() async throws -> PeopleKeyCounts {
        try read { db in
            // A database opened as it is, before an upgrade, has no keys yet.
            guard try db.columns(in: "contact").contains(where: { $0.name == "key_id" }) else {
                return PeopleKeyCounts(
                    ownKeys: 0, underDataKey: try Int.fetchOne(db, sql: "SELECT count(*) FROM contact WHERE erased_at IS NULL") ?? 0)
            }
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT count(key_id) AS own, count(*) - count(key_id) AS under FROM contact WHERE erased_at IS NULL
                    """)
            return PeopleKeyCounts(ownKeys: row?["own"] ?? 0, underDataKey: row?["under"] ?? 0)
        }
    }
}
