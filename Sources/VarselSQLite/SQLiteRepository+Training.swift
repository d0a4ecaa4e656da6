import Foundation
import GRDB
import VarselCore
import VarselStore

/// Training scenarios and certifications.
extension SQLiteRepository {
    // MARK: Scenarios

    func scenario(_ row: Row) -> Scenario {
        Scenario(id: row["id"], title: row["title"], body: row["body"], coordinatorID: row["coordinator_id"], createdAt: Self.date(row["created_at"]))
    }

    func mentorScenario(_ row: Row, _ scenario: Scenario) throws -> MentorScenario {
        MentorScenario(
            scenario: scenario, mentorID: row["mentor_id"], doneAt: (row["done_at"] as Double?).map(Self.date),
            reflection: try sealer.open(row["reflection"] as String, field: .reflection))
    }

    public func publishScenario(
        title: String, body: String, coordinatorID: UserID?, mentorIDs: [UserID], scheduledSendID: ScheduledSendID?, at date: Date,
        makeNotification: @escaping @Sendable (Int64, UserID) -> NewNotification
    ) async throws -> (Scenario, [NotificationItem]) {
        let (scenario, fanout, written) = try await writeAlone { db -> (Scenario, Int64?, [NotificationItem]) in
            // A scheduled send publishes its scenario once: the one it published is the answer, with nothing new.
            if let scheduledSendID,
                let published = try Row.fetchOne(db, sql: "SELECT * FROM scenario WHERE scheduled_send_id = ?", arguments: [scheduledSendID])
            {
                return (self.scenario(published), nil, [])
            }
            let mentors = Set(mentorIDs).sorted()
            for mentorID in mentors where try Bool.fetchOne(db, sql: "SELECT 1 FROM user WHERE id = ?", arguments: [mentorID]) != true {
                throw StoreError.notFound(.mentor)
            }
            try db.execute(
                sql: "INSERT INTO scenario (title, body, coordinator_id, created_at, scheduled_send_id) VALUES (?, ?, ?, ?, ?)",
                arguments: [title, body, coordinatorID, date.timeIntervalSince1970, scheduledSendID])
            let scenario = Scenario(id: db.lastInsertedRowID, title: title, body: body, coordinatorID: coordinatorID, createdAt: date)
            let copy = try db.cachedStatement(sql: "INSERT INTO scenario_recipient (scenario_id, mentor_id) VALUES (?, ?)")
            for mentorID in mentors { try copy.execute(arguments: [scenario.id, mentorID]) }
            let (fanout, written) = try self.startFanOut(mentors.map { makeNotification(scenario.id, $0) }, at: date, db: db)
            return (scenario, fanout, written)
        }
        guard let fanout else { return (scenario, written) }
        return (scenario, try await finishFanOut(fanout, written: written))
    }

    public func scenarios(forMentor mentorID: UserID) async throws -> [MentorScenario] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT s.*, r.mentor_id, r.done_at, r.reflection FROM scenario_recipient r JOIN scenario s ON s.id = r.scenario_id
                    WHERE r.mentor_id = ? ORDER BY s.id DESC
                    """, arguments: [mentorID]
            ).map { try self.mentorScenario($0, self.scenario($0)) }
        }
    }

    public func allScenarios() async throws -> [(Scenario, [MentorScenario])] {
        try read { db in
            let scenarios = try Row.fetchAll(db, sql: "SELECT * FROM scenario ORDER BY id DESC").map(self.scenario)
            var copies: [Int64: [MentorScenario]] = [:]
            let byID = Dictionary(uniqueKeysWithValues: scenarios.map { ($0.id, $0) })
            for row in try Row.fetchAll(db, sql: "SELECT * FROM scenario_recipient ORDER BY scenario_id, mentor_id") {
                guard let scenario = byID[row["scenario_id"]] else { continue }
                copies[scenario.id, default: []].append(try self.mentorScenario(row, scenario))
            }
            return scenarios.map { ($0, copies[$0.id] ?? []) }
        }
    }

    public func completeScenario(scenarioID: Int64, mentorID: UserID, reflection: String, at date: Date) async throws -> MentorScenario {
        try await commits.write { db in
            try db.execute(
                sql: """
                    UPDATE scenario_recipient SET done_at = COALESCE(done_at, ?), reflection = ? WHERE scenario_id = ? AND mentor_id = ?
                    """, arguments: [date.timeIntervalSince1970, self.sealer.seal(reflection, field: .reflection), scenarioID, mentorID])
            guard db.changesCount == 1,
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT s.*, r.mentor_id, r.done_at, r.reflection FROM scenario_recipient r JOIN scenario s ON s.id = r.scenario_id
                        WHERE r.scenario_id = ? AND r.mentor_id = ?
                        """, arguments: [scenarioID, mentorID])
            else { throw StoreError.notFound(.scenario) }
            return try self.mentorScenario(row, self.scenario(row))
        }
    }

    // MARK: Certifications

    func certification(_ row: Row) -> Certification {
        Certification(id: row["id"], mentorID: row["mentor_id"], name: row["name"], expiresAt: Self.date(row["expires_at"]))
    }

    func replaceCertifications(_ certifications: [NewCertification], mentorID: UserID, db: Database) throws {
        let existing = try Row.fetchAll(db, sql: "SELECT * FROM certification WHERE mentor_id = ?", arguments: [mentorID]).map(self.certification)
        var result: [Certification] = []
        for new in certifications {
            // An unchanged certification keeps its id, and so the warnings already sent for it.
            if let same = existing.first(where: { $0.name == new.name && $0.expiresAt == new.expiresAt }), !result.contains(same) {
                result.append(same)
                continue
            }
            try db.execute(
                sql: "INSERT INTO certification (mentor_id, name, expires_at) VALUES (?, ?, ?)",
                arguments: [mentorID, new.name, new.expiresAt.timeIntervalSince1970])
            result.append(Certification(id: db.lastInsertedRowID, mentorID: mentorID, name: new.name, expiresAt: new.expiresAt))
        }
        for old in existing where !result.contains(old) {
            try db.execute(sql: "DELETE FROM certification WHERE id = ?", arguments: [old.id])
        }
    }

    public func certifications(mentorID: UserID) async throws -> [Certification] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM certification WHERE mentor_id = ? ORDER BY id", arguments: [mentorID]).map(self.certification)
        }
    }

    public func certifications(expiringBefore date: Date) async throws -> [Certification] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM certification WHERE expires_at < ? ORDER BY id",
                arguments: [date.timeIntervalSince1970]
            ).map(self.certification)
        }
    }

    public func recordExpiryWarning(certificationID: Int64, threshold: Int, alsoCovers: [Int], notification: NewNotification, at date: Date)
        async throws -> NotificationItem?
    {
        try await commits.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO certification_warning (certification_id, threshold) VALUES (?, ?)",
                arguments: [certificationID, threshold])
            guard db.changesCount > 0 else { return nil }
            for other in alsoCovers {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO certification_warning (certification_id, threshold) VALUES (?, ?)",
                    arguments: [certificationID, other])
            }
            let item = try self.insert(notification, at: date, db: db)
            try self.appendUnreadCounts(for: [item.recipientID], at: date, db: db)
            return item
        }
    }
}
