import Foundation
import PostgresNIO
import VarselCore
import VarselStore

/// The keys of the people mentors visit (``PersonKeyring``): which key a value is sealed under, and keeping erasures
/// and the key store in step.
extension PostgresRepository {
    /// The keys of the people the notifications with personal details among `notifications` are about, by contact;
    /// none without people's keys.
    func personKeys(about notifications: [(deepLink: DeepLinkTarget, details: [String])], _ c: PostgresConnection) async throws
        -> [ContactID: PersonKeyID]
    {
        let ids = Array(Set(notifications.compactMap { sealer.personSealing(deepLink: $0.deepLink, details: $0.details) }))
        guard !ids.isEmpty else { return [:] }
        var keys: [ContactID: PersonKeyID] = [:]
        let rows = try await c.query("SELECT id, key_id FROM contact WHERE id = ANY(\(ids)) AND key_id IS NOT NULL", logger: logger)
        for try await (id, key) in rows.decode((ContactID, String).self) { keys[id] = PersonKeyID(rawValue: key) }
        return keys
    }

    /// The key contact `contactID`'s details are sealed under, when people have keys and it has one.
    func personKey(contactID: ContactID, _ c: PostgresConnection) async throws -> PersonKeyID? {
        guard sealer.people != nil else { return nil }
        return try await Self.first(c.query("SELECT key_id FROM contact WHERE id = \(contactID)", logger: logger))?
            .decode(String?.self).flatMap(PersonKeyID.init(rawValue:))
    }

    public func erasePeopleWithDestroyedKeys(titles: [Language: String], at date: Date) async throws -> Int {
        guard let people = sealer.people else { return 0 }
        let rows = try await read { c in
            try await c.query(
                "SELECT id, key_id, erased_at IS NOT NULL FROM contact WHERE key_id IS NOT NULL ORDER BY id", logger: self.logger
            ).collect().compactMap { row -> ContactKeyRow? in
                let (id, key, erased) = try row.decode((ContactID, String, Bool).self)
                return PersonKeyID(rawValue: key).map { ContactKeyRow(contactID: id, key: $0, isErased: erased) }
            }
        }
        let forgotten = try people.reconcile(rows, at: date)
        for person in forgotten { _ = try await eraseContact(contactID: person.contactID, titles: titles, at: person.destroyedAt) }
        return forgotten.count
    }
}

extension PostgresRepository {
    public func movePeopleToTheirKeys(limit: Int) async throws -> Int {
        guard let people = sealer.people else { return 0 }
        let waiting = try await read { c in
            try await c.query(
                "SELECT id FROM contact WHERE key_id IS NULL AND erased_at IS NULL ORDER BY id LIMIT \(Int64(limit))", logger: self.logger
            ).collect().map { try $0.decode(ContactID.self) }
        }
        for contactID in waiting {
            // The key is in the key store before anything is sealed under it; one the transaction ends up not using
            // (another instance moved the person first) seals nothing.
            let key = try people.newKey()
            try await write { c in try await self.move(contactID, to: key, c) }
        }
        return waiting.count
    }

    /// Seals contact `contactID`'s details, its visit notes, and its assignments' notifications and their copies in the
    /// event log under `key`, unless it has a key already.
    private func move(_ contactID: ContactID, to key: PersonKeyID, _ c: PostgresConnection) async throws {
        guard
            let contact = try await Self.first(
                c.query("SELECT name, phone, address, notes FROM contact WHERE id = \(contactID) AND key_id IS NULL FOR UPDATE", logger: logger))
        else { return }
        let reseal = { (stored: String, field: SealedField) throws -> String in
            try self.sealer.seal(try self.sealer.open(stored, field: field), field: field, person: key)
        }
        let (name, phone, address, notes) = try contact.decode((String, String, String, String).self)
        let (newName, newPhone, newAddress, newNotes) = (
            try reseal(name, .contactName), try reseal(phone, .contactPhone), try reseal(address, .contactAddress), try reseal(notes, .contactNotes)
        )
        try await c.query(
            """
            UPDATE contact SET name = \(newName), phone = \(newPhone), address = \(newAddress), notes = \(newNotes), key_id = \(key.rawValue)
            WHERE id = \(contactID)
            """, logger: logger)
        let visitNotes = try await c.query(
            "SELECT id, visit_note FROM assignment WHERE contact_id = \(contactID) AND visit_note IS NOT NULL AND visit_note <> '' FOR UPDATE",
            logger: logger
        ).collect().map { try $0.decode((AssignmentID, String).self) }
        for (id, note) in visitNotes {
            let sealed = try reseal(note, .visitNote)
            try await c.query("UPDATE assignment SET visit_note = \(sealed) WHERE id = \(id)", logger: logger)
        }
        let notifications = try await c.query(
            """
            SELECT notification.id, notification.body, notification.personal_details FROM assignment
            JOIN notification ON notification.id = assignment.notification_id
            WHERE assignment.contact_id = \(contactID) AND notification.personal_details <> '[]' FOR UPDATE OF notification
            """, logger: logger
        ).collect().map { try $0.decode((NotificationID, String, String).self) }
        for (id, body, details) in notifications {
            let (newBody, newDetails) = (try reseal(body, .notificationBody), try reseal(details, .notificationDetails))
            try await c.query("UPDATE notification SET body = \(newBody), personal_details = \(newDetails) WHERE id = \(id)", logger: logger)
            let events = try await c.query(
                "SELECT id, notification FROM event WHERE notification_id = \(id) AND notification IS NOT NULL",
                logger: logger
            ).collect().map { try $0.decode((Int64, String).self) }
            for (eventID, json) in events {
                let sealed = try reseal(json, .eventNotification)
                try await c.query("UPDATE event SET notification = \(sealed) WHERE id = \(eventID)", logger: logger)
            }
        }
    }

    public func peopleKeyCounts() async throws -> PeopleKeyCounts {
        try await read { c in
            let hasKeys =
                try await Self.first(
                    c.query(
                        """
                        SELECT count(*) FROM information_schema.columns
                        WHERE table_schema = current_schema() AND table_name = 'contact' AND column_name = 'key_id'
                        """, logger: self.logger))?.decode(Int64.self) ?? 0
            let keyed = hasKeys > 0 ? "count(key_id)" : "0::bigint"
            let (own, all) = try await Self.one(
                c.query(PostgresQuery(unsafeSQL: "SELECT \(keyed), count(*) FROM contact WHERE erased_at IS NULL"), logger: self.logger)
            ).decode((Int64, Int64).self)
            return PeopleKeyCounts(ownKeys: Int(own), underDataKey: Int(all - own))
        }
    }
}
