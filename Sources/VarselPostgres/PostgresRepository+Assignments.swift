import Foundation
import Logging
import PostgresNIO
import VarselCore
import VarselStore

/// Contacts, assignments, their answers and escalations, and who read a contact.
extension PostgresRepository {
    // MARK: Contacts and assignments

    public func createAssignment(
        mentorID: UserID, coordinatorID: UserID?, contact: NewContact, at date: Date,
        makeNotification: @escaping @Sendable (ContactID, AssignmentID) -> NewNotification
    ) async throws -> (Assignment, Contact, NotificationItem) {
        let created: CreatedAssignment = try await write(appendsEvents: true) { c in
            let mentor = try await c.query("SELECT 1 FROM users WHERE id = \(mentorID)", logger: self.logger).collect()
            guard !mentor.isEmpty else { throw StoreError.notFound(.mentor) }
            // The person's key is in the key store before anything sealed under it is committed.
            let key = try self.sealer.newPersonKey()
            let (name, phone, address, notes) = (
                try self.sealer.seal(contact.name, field: .contactName, person: key),
                try self.sealer.seal(contact.phone, field: .contactPhone, person: key),
                try self.sealer.seal(contact.address, field: .contactAddress, person: key),
                try self.sealer.seal(contact.notes, field: .contactNotes, person: key)
            )
            let contactID = try await Self.one(
                c.query(
                    """
                    INSERT INTO contact (name, phone, address, notes, key_id)
                    VALUES (\(name), \(phone), \(address), \(notes), \(key?.rawValue))
                    RETURNING id
                    """, logger: self.logger)
            ).decode(ContactID.self)
            let stored = Contact(id: contactID, name: contact.name, phone: contact.phone, address: contact.address, notes: contact.notes)
            let assignmentID = try await Self.one(
                c.query(
                    """
                    INSERT INTO assignment (mentor_id, contact_id, coordinator_id, status, created_at)
                    VALUES (\(mentorID), \(contactID), \(coordinatorID), \(AssignmentStatus.pending.rawValue), \(date.timeIntervalSince1970))
                    RETURNING id
                    """, logger: self.logger)
            ).decode(AssignmentID.self)
            let item = try await self.insertRow(makeNotification(contactID, assignmentID), at: date, c)
            try await self.appendCreatedEvents([item], at: date, c)
            try await c.query("UPDATE assignment SET notification_id = \(item.id) WHERE id = \(assignmentID)", logger: self.logger)
            let assignment = Assignment(
                id: assignmentID, mentorID: mentorID, contactID: contactID, coordinatorID: coordinatorID,
                status: .pending, createdAt: date, respondedAt: nil, notificationID: item.id)
            try await self.queueWebhookEvents([.assignment(.assignmentCreated, assignment)], at: date, c)
            return CreatedAssignment(assignment: assignment, contact: stored, item: item)
        }
        return (created.assignment, created.contact, created.item)
    }

    struct CreatedAssignment: Sendable {
        var assignment: Assignment
        var contact: Contact
        var item: NotificationItem
    }

    static let assignmentColumns = """
        id, mentor_id, contact_id, coordinator_id, status, created_at, responded_at, notification_id, \
        previous_id, reassigned_at, done_at, visit_note, delivered_at
        """

    func assignment(_ row: PostgresRow) throws -> Assignment {
        let (id, mentor, contact, coordinator, status, created, responded, notification, previous, reassigned, done, note, delivered) =
            try row.decode(
                (
                    AssignmentID, UserID, ContactID, UserID?, String, Double, Double?, NotificationID?, AssignmentID?, Double?, Double?, String?,
                    Double?
                ).self)
        return Assignment(
            id: id, mentorID: mentor, contactID: contact, coordinatorID: coordinator,
            status: try AssignmentStatus(stored: status, column: "assignment.status"),
            createdAt: Self.date(created), respondedAt: responded.map(Self.date), notificationID: notification,
            previousID: previous, reassignedAt: reassigned.map(Self.date), doneAt: done.map(Self.date),
            visitNote: try sealer.openIfPresent(note, field: .visitNote), deliveredAt: delivered.map(Self.date))
    }

    public func assignment(id: AssignmentID) async throws -> Assignment? {
        try await read { c in
            try await Self.first(c.query("SELECT \(unescaped: Self.assignmentColumns) FROM assignment WHERE id = \(id)", logger: self.logger))
                .map(self.assignment)
        }
    }

    public func assignments(_ listing: AssignmentListing) async throws -> [Assignment] {
        try await read { c in
            try await c.query(Self.listing(listing, select: "SELECT \(Self.assignmentColumns) FROM assignment a"), logger: self.logger)
                .collect().map(self.assignment)
        }
    }

    public func assignmentReports(_ listing: AssignmentListing) async throws -> [AssignmentReportRow] {
        try await read { c in
            let columns = Self.assignmentColumns.split(separator: ",").map { "a." + $0.trimmingCharacters(in: .whitespaces) }
            // The steps are the store's own constants, never input.
            let steps = EscalationStep.allCases.map {
                "(SELECT at FROM assignment_escalation e WHERE e.assignment_id = a.id AND e.step = '\($0.rawValue)')"
            }
            let select = """
                SELECT \((columns + ["c.name", "c.address", "c.erased_at", "COALESCE(u.display_name, '')", "n.read_at"] + steps).joined(separator: ", "))
                FROM assignment a
                JOIN contact c ON c.id = a.contact_id
                LEFT JOIN users u ON u.id = a.mentor_id
                LEFT JOIN notification n ON n.id = a.notification_id
                """
            return try await c.query(Self.listing(listing, select: select), logger: self.logger).collect().map { row in
                let cells = row.makeRandomAccess()
                let first = columns.count
                var reached: [EscalationStep: Date] = [:]
                for (index, step) in EscalationStep.allCases.enumerated() {
                    reached[step] = try cells[first + 5 + index].decode(Double?.self).map(Self.date)
                }
                return AssignmentReportRow(
                    assignment: try self.assignment(row),
                    contactName: try self.sealer.open(try cells[first].decode(String.self), field: .contactName),
                    contactAddress: try self.sealer.open(try cells[first + 1].decode(String.self), field: .contactAddress),
                    contactErasedAt: try cells[first + 2].decode(Double?.self).map(Self.date),
                    mentorName: try cells[first + 3].decode(String.self),
                    readAt: try cells[first + 4].decode(Double?.self).map(Self.date), escalations: reached)
            }
        }
    }

    /// `select` (naming the assignment `a`) with the condition an assignment meets to be in `listing`, newest first.
    static func listing(_ listing: AssignmentListing, select: String) -> PostgresQuery {
        let (mentor, coordinator, contact, ids, scope) = (
            listing.mentorID, listing.coordinatorID, listing.contactID, listing.ids, listing.scope.rawValue
        )
        return """
            \(unescaped: select)
            WHERE (\(mentor)::BIGINT IS NULL OR a.mentor_id = \(mentor)) AND (\(coordinator)::BIGINT IS NULL OR a.coordinator_id = \(coordinator))
            AND (\(contact)::BIGINT IS NULL OR a.contact_id = \(contact)) AND (\(ids)::BIGINT[] IS NULL OR a.id = ANY(\(ids)))
            AND (\(scope) = 'all' OR a.reassigned_at IS NULL) AND (\(scope) <> 'live' OR a.status IN ('pending', 'acknowledged'))
            ORDER BY a.id DESC
            """
    }

    public func pendingAssignments(createdBefore date: Date) async throws -> [Assignment] {
        try await read { c in
            try await c.query(
                """
                SELECT \(unescaped: Self.assignmentColumns) FROM assignment
                WHERE status = \(AssignmentStatus.pending.rawValue) AND created_at < \(date.timeIntervalSince1970) AND reassigned_at IS NULL
                ORDER BY id
                """, logger: self.logger
            ).collect().map(self.assignment)
        }
    }

    public func recordEscalation(assignmentID: AssignmentID, step: EscalationStep, notification: NewNotification, at date: Date) async throws
        -> NotificationItem?
    {
        try await write(appendsEvents: true) { c in
            let exists = try await c.query("SELECT 1 FROM assignment WHERE id = \(assignmentID)", logger: self.logger).collect()
            guard !exists.isEmpty else { throw StoreError.notFound(.assignment) }
            // The primary key makes each step happen once, however many instances run the upkeep.
            let inserted = try await c.query(
                """
                INSERT INTO assignment_escalation (assignment_id, step, at) VALUES (\(assignmentID), \(step.rawValue), \(date.timeIntervalSince1970))
                ON CONFLICT DO NOTHING RETURNING assignment_id
                """, logger: self.logger
            ).collect()
            guard !inserted.isEmpty else { return nil }
            let item = try await self.insertRow(notification, at: date, c)
            try await self.appendCreatedEvents([item], at: date, c)
            if step == .mentorReminded || step == .coordinatorTold, try await self.wantsWebhookEvent(.assignmentEscalated, c) {
                let assignment = try await self.lockedAssignment(assignmentID, c)
                try await self.queueWebhookEvents([.assignment(.assignmentEscalated, assignment, step: step)], at: date, c)
            }
            return item
        }
    }

    public func escalations(assignmentID: AssignmentID) async throws -> [EscalationStep: Date] {
        try await read { c in
            var steps: [EscalationStep: Date] = [:]
            for row in try await c.query("SELECT step, at FROM assignment_escalation WHERE assignment_id = \(assignmentID)", logger: self.logger)
                .collect()
            {
                let (step, at) = try row.decode((String, Double).self)
                steps[try EscalationStep(stored: step, column: "assignment_escalation.step")] = Self.date(at)
            }
            return steps
        }
    }

    public func eraseContact(contactID: ContactID, titles: [Language: String], at date: Date) async throws -> [NotificationItem]? {
        let erased: ErasedContact? = try await write(appendsEvents: true) { c in
            // A live assignment can no longer be carried out: its system hears it was withdrawn, at the first erasure.
            let notErased = try await Self.first(
                c.query("SELECT erased_at IS NULL FROM contact WHERE id = \(contactID) FOR UPDATE", logger: self.logger)
            )?.decode(Bool.self)
            if notErased == true, try await self.wantsWebhookEvent(.assignmentWithdrawn, c) {
                let live = try await c.query(
                    "SELECT \(unescaped: Self.assignmentColumns) FROM assignment WHERE contact_id = \(contactID) ORDER BY id", logger: self.logger
                ).collect().map(self.assignment).filter(\.isLive)
                try await self.queueWebhookEvents(live.map { .assignment(.assignmentWithdrawn, $0) }, at: date, c)
            }
            let found = try await c.query(
                """
                UPDATE contact SET name = '', phone = '', address = '', notes = '', erased_at = coalesce(erased_at, \(date.timeIntervalSince1970))
                WHERE id = \(contactID) RETURNING key_id
                """, logger: self.logger
            ).collect()
            guard let keyRow = found.first else { return nil }
            let key = try keyRow.decode(String?.self).flatMap(PersonKeyID.init(rawValue:))
            try await c.query("UPDATE assignment SET visit_note = '' WHERE contact_id = \(contactID) AND visit_note IS NOT NULL", logger: self.logger)
            let named = try await c.query(
                """
                SELECT notification.id, users.language FROM assignment
                JOIN notification ON notification.id = assignment.notification_id JOIN users ON users.id = notification.recipient_id
                WHERE assignment.contact_id = \(contactID) ORDER BY notification.id
                """, logger: self.logger
            ).collect().map { try $0.decode((NotificationID, String).self) }
            var items: [NotificationItem] = []
            for (id, stored) in named {
                let title = titles[try Language(stored: stored, column: "users.language")] ?? ""
                guard var item = try await self.fetchNotification(c, id: id) else { continue }
                if item.title != title || !item.body.isEmpty || !item.personalDetails.isEmpty {
                    try await c.query(
                        "UPDATE notification SET title = \(title), body = '', personal_details = '[]' WHERE id = \(id)", logger: self.logger)
                    item.title = title
                    item.body = ""
                    item.personalDetails = []
                    // The event log's copies now say what the notification says.
                    try await c.query(
                        """
                        UPDATE event SET notification = \(try Self.storedJSON(item)) WHERE notification_id = \(id) AND notification IS NOT NULL
                        """, logger: self.logger)
                    try await self.queuePushWithdrawal(notificationID: id, at: date, c)
                    try await self.appendEvent(userID: item.recipientID, .notificationUpdated(item), at: date, c)
                }
                items.append(item)
            }
            return ErasedContact(items: items, key: key)
        }
        guard let erased else { return nil }
        // The person's key goes last: until it is gone, an erasure that failed halfway can be run again. Once it is,
        // no backup of this database opens their details.
        if let key = erased.key { try sealer.people?.destroy(key, at: date) }
        return erased.items
    }

    public func contactsClosed(before date: Date) async throws -> [ContactID] {
        try await read { c in
            try await c.query(
                """
                SELECT assignment.contact_id FROM assignment JOIN contact ON contact.id = assignment.contact_id
                WHERE contact.erased_at IS NULL
                GROUP BY assignment.contact_id
                HAVING sum(CASE WHEN assignment.reassigned_at IS NULL AND assignment.status IN ('pending', 'acknowledged') THEN 1 ELSE 0 END) = 0
                   AND max(coalesce(assignment.reassigned_at, assignment.done_at, assignment.responded_at)) < \(date.timeIntervalSince1970)
                ORDER BY assignment.contact_id
                """, logger: self.logger
            ).collect().map { try $0.decode(ContactID.self) }
        }
    }

    public func resealStale(limit: Int) async throws -> Int {
        guard let keyring = sealer.keyring else { return 0 }
        let current = DataKeyring.prefix(keyID: keyring.currentID)
        // The people's keys are wrapped again, not their details sealed again (PersonKeyring).
        var done = try sealer.people?.rewrapStale() ?? 0
        for column in SealedColumn.all where done < limit {
            let room = limit - done
            done += try await write { c in
                let keys = column.keys.joined(separator: ", ")
                var select = PostgresBindings()
                select.append(current)
                select.append(SealedColumn.marker)
                select.append(Int64(room))
                select.append(SealedColumn.personMarker)
                let rows = try await c.query(
                    PostgresQuery(
                        unsafeSQL: """
                            SELECT \(column.column), \(keys) FROM \(column.table)
                            WHERE \(column.column) <> '' AND substr(\(column.column), 1, \(SealedColumn.prefixLength)) <> $1
                              AND (substr(\(column.column), 1, 1) = $2 OR (\(column.plainCondition)))
                              AND substr(\(column.column), 1, 2) <> $4
                            LIMIT $3 FOR UPDATE
                            """, binds: select), logger: self.logger
                ).collect()
                let update =
                    "UPDATE \(column.table) SET \(column.column) = $1 WHERE "
                    + column.keys.enumerated().map { "\($0.element) = $\($0.offset + 2)" }.joined(separator: " AND ")
                for row in rows {
                    let cells = Array(row)
                    let stored = try cells[0].decode(String.self)
                    var binds = PostgresBindings()
                    binds.append(self.sealer.seal(try self.sealer.open(stored, field: column.field), field: column.field))
                    for cell in cells.dropFirst() { binds.append(try cell.decode(Int64.self)) }
                    try await c.query(PostgresQuery(unsafeSQL: update, binds: binds), logger: self.logger)
                }
                return rows.count
            }
        }
        return done
    }

    public func sealedValueCounts() async throws -> [String: Int] {
        try await read { c in
            var counts: [String: Int] = [:]
            // A database opened as it is, before an upgrade, may lack a column a later version seals.
            var present: Set<String> = []
            let columns = try await c.query(
                """
                SELECT table_name || '.' || column_name FROM information_schema.columns WHERE table_schema = current_schema()
                """, logger: self.logger)
            for try await name in columns.decode(String.self) { present.insert(name) }
            for column in SealedColumn.all where present.contains("\(column.table).\(column.column)") {
                var binds = PostgresBindings()
                binds.append(SealedColumn.marker)
                binds.append(SealedColumn.personMarker)
                let rows = try await c.query(
                    PostgresQuery(
                        unsafeSQL: """
                            SELECT substr(\(column.column), 2, 8), count(*) FROM \(column.table)
                            WHERE substr(\(column.column), 1, 1) = $1 AND substr(\(column.column), 1, 2) <> $2 GROUP BY 1
                            """, binds: binds), logger: self.logger)
                for try await (key, n) in rows.decode((String, Int64).self) { counts[key, default: 0] += Int(n) }
            }
            // A data key that wraps people's keys is in use too.
            for (key, count) in try self.sealer.people?.wrappingKeyCounts() ?? [:] { counts[key, default: 0] += count }
            return counts
        }
    }

    public func recordContactRead(contactID: ContactID, userID: UserID, channel: ContactReadChannel, at date: Date) async throws {
        try await write { c in
            try await c.query(
                """
                INSERT INTO contact_read (contact_id, user_id, channel, at) VALUES (\(contactID), \(userID), \(channel.rawValue), \(date.timeIntervalSince1970))
                """, logger: self.logger)
        }
    }

    public func contactReads(contactID: ContactID) async throws -> [ContactRead] {
        try await read { c in
            try await c.query(
                "SELECT id, contact_id, user_id, channel, at FROM contact_read WHERE contact_id = \(contactID) ORDER BY id",
                logger: self.logger
            ).collect().map { row in
                let (id, contact, user, channel, at) = try row.decode((Int64, ContactID, UserID, String, Double).self)
                guard let parsed = ContactReadChannel(rawValue: channel) else { throw StoreError.unknownStoredValue(column: "contact_read.channel") }
                return ContactRead(id: id, contactID: contact, userID: user, channel: parsed, at: Self.date(at))
            }
        }
    }

    public func pruneContactReads(before date: Date) async throws -> Int {
        try await write { c in
            try await c.query("DELETE FROM contact_read WHERE at < \(date.timeIntervalSince1970) RETURNING id", logger: self.logger).collect().count
        }
    }

    public func contact(id: ContactID) async throws -> Contact? {
        try await read { c in
            try await Self.first(c.query("SELECT id, name, phone, address, notes, erased_at FROM contact WHERE id = \(id)", logger: self.logger)).map
            { row in
                let (id, name, phone, address, notes, erased) = try row.decode((ContactID, String, String, String, String, Double?).self)
                return Contact(
                    id: id, name: try self.sealer.open(name, field: .contactName), phone: try self.sealer.open(phone, field: .contactPhone),
                    address: try self.sealer.open(address, field: .contactAddress), notes: try self.sealer.open(notes, field: .contactNotes),
                    erasedAt: erased.map(Self.date))
            }
        }
    }

    public func respond(to assignmentID: AssignmentID, status: AssignmentStatus, at date: Date) async throws -> Assignment {
        try await write { c in
            var assignment = try await self.lockedAssignment(assignmentID, c)
            if let refusal = assignment.refusalToRespond { throw refusal }
            assignment.status = status
            assignment.respondedAt = date
            try await c.query(
                """
                UPDATE assignment SET status = \(status.rawValue), responded_at = \(date.timeIntervalSince1970) WHERE id = \(assignmentID)
                """, logger: self.logger)
            if let type = WebhookEventType(answer: status) { try await self.queueWebhookEvents([.assignment(type, assignment)], at: date, c) }
            return assignment
        }
    }

    /// The assignment, its row locked for the rest of the transaction.
    func lockedAssignment(_ id: AssignmentID, _ c: PostgresConnection) async throws -> Assignment {
        guard
            let assignment = try await Self.first(
                c.query(
                    """
                    SELECT \(unescaped: Self.assignmentColumns) FROM assignment WHERE id = \(id) FOR UPDATE
                    """, logger: logger)
            ).map(self.assignment)
        else {
            throw StoreError.notFound(.assignment)
        }
        return assignment
    }

    public func reassign(
        assignmentID: AssignmentID, to mentorID: UserID, at date: Date,
        makeNotification: @escaping @Sendable (ContactID, AssignmentID) -> NewNotification
    ) async throws -> (Assignment, NotificationItem) {
        let result: Reassigned = try await write(appendsEvents: true) { c in
            let old = try await self.lockedAssignment(assignmentID, c)
            let mentor = try await c.query("SELECT 1 FROM users WHERE id = \(mentorID)", logger: self.logger).collect()
            guard !mentor.isEmpty else { throw StoreError.notFound(.mentor) }
            if let refusal = old.refusalToReassign { throw refusal }
            let seconds = date.timeIntervalSince1970
            try await c.query("UPDATE assignment SET reassigned_at = \(seconds) WHERE id = \(assignmentID)", logger: self.logger)
            // The first mentor's phones take down the notification that named the person they will no longer visit.
            if let notificationID = old.notificationID { try await self.queuePushWithdrawal(notificationID: notificationID, at: date, c) }
            let newID = try await Self.one(
                c.query(
                    """
                    INSERT INTO assignment (mentor_id, contact_id, coordinator_id, status, created_at, previous_id)
                    VALUES (\(mentorID), \(old.contactID), \(old.coordinatorID), \(AssignmentStatus.pending.rawValue), \(seconds), \(assignmentID))
                    RETURNING id
                    """, logger: self.logger)
            ).decode(AssignmentID.self)
            let item = try await self.insertRow(makeNotification(old.contactID, newID), at: date, c)
            try await self.appendCreatedEvents([item], at: date, c)
            try await c.query("UPDATE assignment SET notification_id = \(item.id) WHERE id = \(newID)", logger: self.logger)
            let new = Assignment(
                id: newID, mentorID: mentorID, contactID: old.contactID, coordinatorID: old.coordinatorID,
                status: .pending, createdAt: date, respondedAt: nil, notificationID: item.id, previousID: assignmentID)
            try await self.queueWebhookEvents([.assignment(.assignmentReassigned, new)], at: date, c)
            return Reassigned(assignment: new, item: item)
        }
        return (result.assignment, result.item)
    }

    struct Reassigned: Sendable {
        var assignment: Assignment
        var item: NotificationItem
    }

    public func completeVisit(assignmentID: AssignmentID, note: String, at date: Date) async throws -> Assignment {
        try await write { c in
            var assignment = try await self.lockedAssignment(assignmentID, c)
            if let refusal = assignment.refusalToComplete { throw refusal }
            assignment.status = .done
            assignment.doneAt = date
            assignment.visitNote = note
            try await c.query(
                """
                UPDATE assignment SET status = \(AssignmentStatus.done.rawValue), done_at = \(date.timeIntervalSince1970),
                    visit_note = \(try self.sealer.seal(note, field: .visitNote, person: try await self.personKey(contactID: assignment.contactID, c)))
                WHERE id = \(assignmentID)
                """, logger: self.logger)
            try await self.queueWebhookEvents([.assignment(.assignmentDone, assignment)], at: date, c)
            return assignment
        }
    }

    public func recordLiveDelivery(notificationID: NotificationID, at date: Date) async throws {
        try await write { c in
            try await c.query(
                """
                UPDATE assignment SET delivered_at = \(date.timeIntervalSince1970) WHERE notification_id = \(notificationID) AND delivered_at IS NULL
                """, logger: self.logger)
        }
    }
}
