import Foundation
import GRDB
import VarselCore
import VarselStore

/// Contacts, assignments, their answers and escalations, and who read a contact.
extension SQLiteRepository {
    // MARK: Contacts and assignments

    public func createAssignment(
        mentorID: UserID, coordinatorID: UserID?, contact: NewContact, at date: Date,
        makeNotification: @escaping @Sendable (ContactID, AssignmentID) -> NewNotification
    ) async throws -> (Assignment, Contact, NotificationItem) {
        // A transaction of its own: `makeNotification` may not outlive this call, as a write waiting for a batch would.
        try await writeAlone { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM user WHERE id = ?", arguments: [mentorID]) == true else {
                throw StoreError.notFound(.mentor)
            }
            // The person's key is in the key store before anything sealed under it is committed.
            let key = try self.sealer.newPersonKey()
            try db.execute(
                sql: "INSERT INTO contact (name, phone, address, notes, key_id) VALUES (?, ?, ?, ?, ?)",
                arguments: [
                    try self.sealer.seal(contact.name, field: .contactName, person: key),
                    try self.sealer.seal(contact.phone, field: .contactPhone, person: key),
                    try self.sealer.seal(contact.address, field: .contactAddress, person: key),
                    try self.sealer.seal(contact.notes, field: .contactNotes, person: key), key?.rawValue,
                ])
            let stored = Contact(
                id: ContactID(db.lastInsertedRowID), name: contact.name, phone: contact.phone, address: contact.address, notes: contact.notes)
            try db.execute(
                sql: """
                    INSERT INTO assignment (mentor_id, contact_id, coordinator_id, status, created_at) VALUES (?, ?, ?, ?, ?)
                    """, arguments: [mentorID, stored.id, coordinatorID, AssignmentStatus.pending.rawValue, date.timeIntervalSince1970])
            let assignmentID = AssignmentID(db.lastInsertedRowID)
            let item = try self.insert(makeNotification(stored.id, assignmentID), at: date, db: db)
            try self.appendUnreadCounts(for: [item.recipientID], at: date, db: db)
            try db.execute(sql: "UPDATE assignment SET notification_id = ? WHERE id = ?", arguments: [item.id, assignmentID])
            let assignment = Assignment(
                id: assignmentID, mentorID: mentorID, contactID: stored.id, coordinatorID: coordinatorID,
                status: .pending, createdAt: date, respondedAt: nil, notificationID: item.id)
            try self.queueWebhookEvents([.assignment(.assignmentCreated, assignment)], at: date, db: db)
            return (assignment, stored, item)
        }
    }

    func assignment(_ row: Row) throws -> Assignment {
        Assignment(
            id: row["id"], mentorID: row["mentor_id"], contactID: row["contact_id"], coordinatorID: row["coordinator_id"],
            status: try AssignmentStatus(stored: row["status"], column: "assignment.status"), createdAt: Self.date(row["created_at"]),
            respondedAt: (row["responded_at"] as Double?).map(Self.date), notificationID: row["notification_id"],
            previousID: row["previous_id"], reassignedAt: (row["reassigned_at"] as Double?).map(Self.date),
            doneAt: (row["done_at"] as Double?).map(Self.date), visitNote: try sealer.openIfPresent(row["visit_note"] as String?, field: .visitNote),
            deliveredAt: (row["delivered_at"] as Double?).map(Self.date))
    }

    public func assignment(id: AssignmentID) async throws -> Assignment? {
        try read { db in try Row.fetchOne(db, sql: "SELECT * FROM assignment WHERE id = ?", arguments: [id]).map(self.assignment) }
    }

    public func assignments(_ listing: AssignmentListing) async throws -> [Assignment] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT a.* FROM assignment a WHERE \(Self.listingCondition) ORDER BY a.id DESC",
                arguments: Self.arguments(for: listing)
            ).map(self.assignment)
        }
    }

    public func assignmentReports(_ listing: AssignmentListing) async throws -> [AssignmentReportRow] {
        try read { db in
            let steps = EscalationStep.allCases
            let escalations = steps.enumerated().map { index, _ in
                "(SELECT at FROM assignment_escalation e WHERE e.assignment_id = a.id AND e.step = ?) AS step_\(index)"
            }.joined(separator: ", ")
            let sql = """
                SELECT a.*, c.name AS contact_name, c.address AS contact_address, c.erased_at AS contact_erased_at,
                       COALESCE(u.display_name, '') AS mentor_name, n.read_at AS notification_read_at, \(escalations)
                FROM assignment a
                JOIN contact c ON c.id = a.contact_id
                LEFT JOIN user u ON u.id = a.mentor_id
                LEFT JOIN notification n ON n.id = a.notification_id
                WHERE \(Self.listingCondition)
                ORDER BY a.id DESC
                """
            var arguments = StatementArguments(steps.map(\.rawValue))
            arguments += Self.arguments(for: listing)
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                var reached: [EscalationStep: Date] = [:]
                for (index, step) in steps.enumerated() {
                    if let at = row["step_\(index)"] as Double? { reached[step] = Self.date(at) }
                }
                return AssignmentReportRow(
                    assignment: try self.assignment(row),
                    contactName: try self.sealer.open(row["contact_name"] as String, field: .contactName),
                    contactAddress: try self.sealer.open(row["contact_address"] as String, field: .contactAddress),
                    contactErasedAt: (row["contact_erased_at"] as Double?).map(Self.date), mentorName: row["mentor_name"],
                    readAt: (row["notification_read_at"] as Double?).map(Self.date), escalations: reached)
            }
        }
    }

    /// The condition an assignment (`a`) meets to be in a listing, with ``arguments(for:)`` in order.
    static let listingCondition = """
        (? IS NULL OR a.mentor_id = ?) AND (? IS NULL OR a.coordinator_id = ?) AND (? IS NULL OR a.contact_id = ?) \
        AND (? IS NULL OR a.id IN (SELECT value FROM json_each(?))) \
        AND (? = 'all' OR a.reassigned_at IS NULL) AND (? <> 'live' OR a.status IN ('pending', 'acknowledged'))
        """

    static func arguments(for listing: AssignmentListing) -> StatementArguments {
        let ids = listing.ids.map { "[" + $0.map(String.init).joined(separator: ",") + "]" }
        return [
            listing.mentorID, listing.mentorID, listing.coordinatorID, listing.coordinatorID, listing.contactID, listing.contactID,
            ids, ids, listing.scope.rawValue, listing.scope.rawValue,
        ]
    }

    public func pendingAssignments(createdBefore date: Date) async throws -> [Assignment] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM assignment WHERE status = ? AND created_at < ? AND reassigned_at IS NULL ORDER BY id",
                arguments: [AssignmentStatus.pending.rawValue, date.timeIntervalSince1970]
            ).map(self.assignment)
        }
    }

    public func recordEscalation(assignmentID: AssignmentID, step: EscalationStep, notification: NewNotification, at date: Date) async throws
        -> NotificationItem?
    {
        try await commits.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM assignment WHERE id = ?", arguments: [assignmentID]) == true else {
                throw StoreError.notFound(.assignment)
            }
            try db.execute(
                sql: "INSERT OR IGNORE INTO assignment_escalation (assignment_id, step, at) VALUES (?, ?, ?)",
                arguments: [assignmentID, step.rawValue, date.timeIntervalSince1970])
            guard db.changesCount > 0 else { return nil }
            let item = try self.insert(notification, at: date, db: db)
            try self.appendUnreadCounts(for: [item.recipientID], at: date, db: db)
            if step == .mentorReminded || step == .coordinatorTold, try self.wantsWebhookEvent(.assignmentEscalated, db: db) {
                try self.queueWebhookEvents(
                    [.assignment(.assignmentEscalated, try self.assignment(assignmentID, db: db), step: step)], at: date, db: db)
            }
            return item
        }
    }

    public func escalations(assignmentID: AssignmentID) async throws -> [EscalationStep: Date] {
        try read { db in
            var steps: [EscalationStep: Date] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT step, at FROM assignment_escalation WHERE assignment_id = ?", arguments: [assignmentID]) {
                steps[try EscalationStep(stored: row["step"], column: "assignment_escalation.step")] = Self.date(row["at"])
            }
            return steps
        }
    }

    public func eraseContact(contactID: ContactID, titles: [Language: String], at date: Date) async throws -> [NotificationItem]? {
        let erased: ErasedContact? = try await commits.write { db in
            guard
                let found = try Row.fetchOne(
                    db, sql: "SELECT erased_at IS NULL AS not_erased, key_id FROM contact WHERE id = ?", arguments: [contactID])
            else {
                return nil
            }
            let notErased: Bool = found["not_erased"]
            // A live assignment can no longer be carried out: its system hears it was withdrawn, at the first erasure.
            if notErased, try self.wantsWebhookEvent(.assignmentWithdrawn, db: db) {
                let live = try Row.fetchAll(db, sql: "SELECT * FROM assignment WHERE contact_id = ? ORDER BY id", arguments: [contactID])
                    .map(self.assignment).filter(\.isLive)
                try self.queueWebhookEvents(live.map { .assignment(.assignmentWithdrawn, $0) }, at: date, db: db)
            }
            try db.execute(
                sql: """
                    UPDATE contact SET name = '', phone = '', address = '', notes = '', erased_at = coalesce(erased_at, ?) WHERE id = ?
                    """, arguments: [date.timeIntervalSince1970, contactID])
            try db.execute(sql: "UPDATE assignment SET visit_note = '' WHERE contact_id = ? AND visit_note IS NOT NULL", arguments: [contactID])
            let named = try Row.fetchAll(
                db,
                sql: """
                    SELECT notification.id, user.language FROM assignment
                    JOIN notification ON notification.id = assignment.notification_id JOIN user ON user.id = notification.recipient_id
                    WHERE assignment.contact_id = ? ORDER BY notification.id
                    """, arguments: [contactID])
            var items: [NotificationItem] = []
            for row in named {
                let id: NotificationID = row["id"]
                let language = try Language(stored: row["language"], column: "user.language")
                guard var item = try self.fetchNotification(db, id: id) else { continue }
                if item.title != (titles[language] ?? "") || !item.body.isEmpty || !item.personalDetails.isEmpty {
                    try db.execute(
                        sql: "UPDATE notification SET title = ?, body = '', personal_details = '[]' WHERE id = ?",
                        arguments: [(titles[language] ?? ""), id])
                    item.title = (titles[language] ?? "")
                    item.body = ""
                    item.personalDetails = []
                    // The event log's copies now say what the notification says.
                    try db.execute(
                        sql: "UPDATE event SET notification = ? WHERE notification_id = ? AND notification IS NOT NULL",
                        arguments: [try StoredNotificationJSON.encode(item) ?? String(decoding: Self.encoder.encode(item), as: UTF8.self), id])
                    try self.queuePushWithdrawal(notificationID: id, at: date, db: db)
                    try self.appendEvent(userID: item.recipientID, .notificationUpdated(item), at: date, db: db)
                }
                items.append(item)
            }
            return ErasedContact(items: items, key: (found["key_id"] as String?).flatMap(PersonKeyID.init(rawValue:)))
        }
        guard let erased else { return nil }
        // What was overwritten must not linger in the write-ahead log: it is copied into the file and emptied.
        _ = try? await writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        // The person's key goes last: until it is gone, an erasure that failed halfway can be run again. Once it is,
        // no backup of this database opens their details.
        if let key = erased.key { try sealer.people?.destroy(key, at: date) }
        return erased.items
    }

    public func contactsClosed(before date: Date) async throws -> [ContactID] {
        try read { db in
            try ContactID.fetchAll(
                db,
                sql: """
                    SELECT assignment.contact_id FROM assignment JOIN contact ON contact.id = assignment.contact_id
                    WHERE contact.erased_at IS NULL
                    GROUP BY assignment.contact_id
                    HAVING sum(CASE WHEN assignment.reassigned_at IS NULL AND assignment.status IN ('pending', 'acknowledged') THEN 1 ELSE 0 END) = 0
                       AND max(coalesce(assignment.reassigned_at, assignment.done_at, assignment.responded_at)) < ?
                    ORDER BY assignment.contact_id
                    """, arguments: [date.timeIntervalSince1970])
        }
    }

    public func resealStale(limit: Int) async throws -> Int {
        guard let keyring = sealer.keyring else { return 0 }
        let current = DataKeyring.prefix(keyID: keyring.currentID)
        // The people's keys are wrapped again, not their details sealed again (PersonKeyring).
        var done = try sealer.people?.rewrapStale() ?? 0
        for column in SealedColumn.all where done < limit {
            let room = limit - done
            done += try await commits.write { db in
                let keys = column.keys.joined(separator: ", ")
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT \(keys), \(column.column) AS value FROM \(column.table)
                        WHERE \(column.column) <> '' AND substr(\(column.column), 1, \(SealedColumn.prefixLength)) <> ?
                          AND (substr(\(column.column), 1, 1) = ? OR (\(column.plainCondition)))
                          AND substr(\(column.column), 1, 2) <> ?
                        LIMIT ?
                        """, arguments: [current, SealedColumn.marker, SealedColumn.personMarker, room])
                let update =
                    "UPDATE \(column.table) SET \(column.column) = ? WHERE "
                    + column.keys.map { "\($0) = ?" }.joined(separator: " AND ") + " AND \(column.column) = ?"
                for row in rows {
                    let stored: String = row["value"]
                    let resealed = self.sealer.seal(try self.sealer.open(stored, field: column.field), field: column.field)
                    var arguments: StatementArguments = [resealed]
                    for key in column.keys { arguments += [row[key] as DatabaseValue] }
                    arguments += [stored]
                    try db.execute(sql: update, arguments: arguments)
                }
                return rows.count
            }
        }
        // The values as they were must not linger in the write-ahead log: it is copied into the file and emptied.
        if done > 0 { _ = try? await writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") } }
        return done
    }

    public func sealedValueCounts() async throws -> [String: Int] {
        try read { db in
            var counts: [String: Int] = [:]
            // A database opened as it is, before an upgrade, may lack a column a later version seals.
            for column in SealedColumn.all
            where try db.tableExists(column.table) && db.columns(in: column.table).contains(where: { $0.name == column.column }) {
                for row in try Row.fetchAll(
                    db,
                    sql: """
                        SELECT substr(\(column.column), 2, 8) AS key, count(*) AS n FROM \(column.table)
                        WHERE substr(\(column.column), 1, 1) = ? AND substr(\(column.column), 1, 2) <> ? GROUP BY 1
                        """, arguments: [SealedColumn.marker, SealedColumn.personMarker])
                {
                    counts[row["key"], default: 0] += row["n"] as Int
                }
            }
            // A data key that wraps people's keys is in use too.
            for (key, count) in try self.sealer.people?.wrappingKeyCounts() ?? [:] { counts[key, default: 0] += count }
            return counts
        }
    }

    public func recordContactRead(contactID: ContactID, userID: UserID, channel: ContactReadChannel, at date: Date) async throws {
        try await commits.write { db in
            try db.execute(
                sql: "INSERT INTO contact_read (contact_id, user_id, channel, at) VALUES (?, ?, ?, ?)",
                arguments: [contactID, userID, channel.rawValue, date.timeIntervalSince1970])
        }
    }

    public func contactReads(contactID: ContactID) async throws -> [ContactRead] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM contact_read WHERE contact_id = ? ORDER BY id", arguments: [contactID]).map { row in
                guard let channel = ContactReadChannel(rawValue: row["channel"]) else {
                    throw StoreError.unknownStoredValue(column: "contact_read.channel")
                }
                return ContactRead(id: row["id"], contactID: row["contact_id"], userID: row["user_id"], channel: channel, at: Self.date(row["at"]))
            }
        }
    }

    public func pruneContactReads(before date: Date) async throws -> Int {
        try await commits.write { db in
            try db.execute(sql: "DELETE FROM contact_read WHERE at < ?", arguments: [date.timeIntervalSince1970])
            return db.changesCount
        }
    }

    public func contact(id: ContactID) async throws -> Contact? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM contact WHERE id = ?", arguments: [id]).map { row in
                Contact(
                    id: row["id"], name: try self.sealer.open(row["name"] as String, field: .contactName),
                    phone: try self.sealer.open(row["phone"] as String, field: .contactPhone),
                    address: try self.sealer.open(row["address"] as String, field: .contactAddress),
                    notes: try self.sealer.open(row["notes"] as String, field: .contactNotes),
                    erasedAt: (row["erased_at"] as Double?).map(Self.date))
            }
        }
    }

    public func respond(to assignmentID: AssignmentID, status: AssignmentStatus, at date: Date) async throws -> Assignment {
        try await commits.write { db in
            var assignment = try self.assignment(assignmentID, db: db)
            if let refusal = assignment.refusalToRespond { throw refusal }
            assignment.status = status
            assignment.respondedAt = date
            try db.execute(
                sql: "UPDATE assignment SET status = ?, responded_at = ? WHERE id = ?",
                arguments: [status.rawValue, date.timeIntervalSince1970, assignmentID])
            if let type = WebhookEventType(answer: status) { try self.queueWebhookEvents([.assignment(type, assignment)], at: date, db: db) }
            return assignment
        }
    }

    func assignment(_ id: AssignmentID, db: Database) throws -> Assignment {
        guard let assignment = try Row.fetchOne(db, sql: "SELECT * FROM assignment WHERE id = ?", arguments: [id]).map(self.assignment) else {
            throw StoreError.notFound(.assignment)
        }
        return assignment
    }

    public func reassign(
        assignmentID: AssignmentID, to mentorID: UserID, at date: Date,
        makeNotification: @escaping @Sendable (ContactID, AssignmentID) -> NewNotification
    ) async throws -> (Assignment, NotificationItem) {
        try await writeAlone { db in
            let old = try self.assignment(assignmentID, db: db)
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM user WHERE id = ?", arguments: [mentorID]) == true else {
                throw StoreError.notFound(.mentor)
            }
            if let refusal = old.refusalToReassign { throw refusal }
            let seconds = date.timeIntervalSince1970
            try db.execute(sql: "UPDATE assignment SET reassigned_at = ? WHERE id = ?", arguments: [seconds, assignmentID])
            // The first mentor's phones take down the notification that named the person they will no longer visit.
            if let notificationID = old.notificationID { try self.queuePushWithdrawal(notificationID: notificationID, at: date, db: db) }
            try db.execute(
                sql: """
                    INSERT INTO assignment (mentor_id, contact_id, coordinator_id, status, created_at, previous_id) VALUES (?, ?, ?, ?, ?, ?)
                    """, arguments: [mentorID, old.contactID, old.coordinatorID, AssignmentStatus.pending.rawValue, seconds, assignmentID])
            let newID = AssignmentID(db.lastInsertedRowID)
            let item = try self.insert(makeNotification(old.contactID, newID), at: date, db: db)
            try self.appendUnreadCounts(for: [item.recipientID], at: date, db: db)
            try db.execute(sql: "UPDATE assignment SET notification_id = ? WHERE id = ?", arguments: [item.id, newID])
            let new = Assignment(
                id: newID, mentorID: mentorID, contactID: old.contactID, coordinatorID: old.coordinatorID, status: .pending,
                createdAt: date, respondedAt: nil, notificationID: item.id, previousID: assignmentID)
            try self.queueWebhookEvents([.assignment(.assignmentReassigned, new)], at: date, db: db)
            return (new, item)
        }
    }

    public func completeVisit(assignmentID: AssignmentID, note: String, at date: Date) async throws -> Assignment {
        try await commits.write { db in
            var assignment = try self.assignment(assignmentID, db: db)
            if let refusal = assignment.refusalToComplete { throw refusal }
            assignment.status = .done
            assignment.doneAt = date
            assignment.visitNote = note
            try db.execute(
                sql: "UPDATE assignment SET status = ?, done_at = ?, visit_note = ? WHERE id = ?",
                arguments: [
                    AssignmentStatus.done.rawValue, date.timeIntervalSince1970,
                    try self.sealer.seal(note, field: .visitNote, person: self.personKey(contactID: assignment.contactID, db: db)), assignmentID,
                ])
            try self.queueWebhookEvents([.assignment(.assignmentDone, assignment)], at: date, db: db)
            return assignment
        }
    }

    public func recordLiveDelivery(notificationID: NotificationID, at date: Date) async throws {
        try await commits.write { db in
            try db.execute(
                sql: "UPDATE assignment SET delivered_at = ? WHERE notification_id = ? AND delivered_at IS NULL",
                arguments: [date.timeIntervalSince1970, notificationID])
        }
    }
}
