import Foundation
import Logging
import PostgresNIO
import VarselCore
import VarselStore

/// Training scenarios and certifications.
extension PostgresRepository {
    // MARK: Scenarios

    static let scenarioColumns = "s.id, s.title, s.body, s.coordinator_id, s.created_at"
    static let mentorScenarioQuery = """
        SELECT s.id, s.title, s.body, s.coordinator_id, s.created_at, r.mentor_id, r.done_at, r.reflection
        FROM scenario_recipient r JOIN scenario s ON s.id = r.scenario_id
        """

    static func scenario(_ row: PostgresRow) throws -> Scenario {
        let (id, title, body, coordinator, created) = try row.decode((Int64, String, String, UserID?, Double).self)
        return Scenario(id: id, title: title, body: body, coordinatorID: coordinator, createdAt: date(created))
    }

    func mentorScenario(_ row: PostgresRow) throws -> MentorScenario {
        let (id, title, body, coordinator, created, mentor, done, reflection) =
            try row.decode((Int64, String, String, UserID?, Double, UserID, Double?, String).self)
        return MentorScenario(
            scenario: Scenario(id: id, title: title, body: body, coordinatorID: coordinator, createdAt: Self.date(created)),
            mentorID: mentor, doneAt: done.map(Self.date), reflection: try sealer.open(reflection, field: .reflection))
    }

    public func publishScenario(
        title: String, body: String, coordinatorID: UserID?, mentorIDs: [UserID], scheduledSendID: ScheduledSendID?, at date: Date,
        makeNotification: @escaping @Sendable (Int64, UserID) -> NewNotification
    ) async throws -> (Scenario, [NotificationItem]) {
        let mentors = Set(mentorIDs).sorted()
        // A statement for each kind of row, not one per mentor: a publish to every mentor is six round trips, and
        // the event-log lock is held only for the events. To many mentors, a fan-out's first chunk is written here.
        let published: Published = try await write(appendsEvents: true, locksLate: true) { c in
            let found = try await Self.one(c.query("SELECT COUNT(*) FROM users WHERE id = ANY(\(mentors))", logger: self.logger)).decode(Int64.self)
            guard found == mentors.count else { throw StoreError.notFound(.mentor) }
            // A scheduled send publishes its scenario once: the one it published is the answer. (Two at once: the
            // second's insert waits for the first's, finds its row, and inserts nothing.)
            if let scheduledSendID, let published = try await self.scenario(publishedBy: scheduledSendID, on: c) {
                return Published(scenario: published, items: [], fanout: nil)
            }
            guard
                let inserted = try await Self.first(
                    c.query(
                        """
                        INSERT INTO scenario (title, body, coordinator_id, created_at, scheduled_send_id)
                        VALUES (\(title), \(body), \(coordinatorID), \(date.timeIntervalSince1970), \(scheduledSendID))
                        ON CONFLICT (scheduled_send_id) WHERE scheduled_send_id IS NOT NULL DO NOTHING
                        RETURNING id
                        """, logger: self.logger))
            else {
                guard let scheduledSendID, let published = try await self.scenario(publishedBy: scheduledSendID, on: c) else {
                    throw StoreError.notFound(.scenario)
                }
                return Published(scenario: published, items: [], fanout: nil)
            }
            let id = try inserted.decode(Int64.self)
            try await c.query(
                "INSERT INTO scenario_recipient (scenario_id, mentor_id) SELECT \(id), unnest(\(mentors)::bigint[])", logger: self.logger)
            let scenario = Scenario(id: id, title: title, body: body, coordinatorID: coordinatorID, createdAt: date)
            let rows = try await self.writeRows(mentors.map { makeNotification(id, $0) }, at: date, c)
            let (fanout, written) = try await self.writeEvents(rows, at: date, c)
            return Published(scenario: scenario, items: written, fanout: fanout)
        }
        guard let fanout = published.fanout else { return (published.scenario, published.items) }
        return (published.scenario, try await finishFanOut(fanout, written: published.items))
    }

    /// The scenario `scheduledSendID` published, if it has.
    private func scenario(publishedBy scheduledSendID: ScheduledSendID, on c: PostgresConnection) async throws -> Scenario? {
        guard
            let row = try await Self.first(
                c.query(
                    "SELECT id, title, body, coordinator_id, created_at FROM scenario WHERE scheduled_send_id = \(scheduledSendID)",
                    logger: self.logger))
        else { return nil }
        let (id, title, body, coordinator, created) = try row.decode((Int64, String, String, UserID?, Double).self)
        return Scenario(id: id, title: title, body: body, coordinatorID: coordinator, createdAt: Self.date(created))
    }

    struct Published: Sendable {
        var scenario: Scenario
        var items: [NotificationItem]
        var fanout: Int64?
    }

    public func scenarios(forMentor mentorID: UserID) async throws -> [MentorScenario] {
        try await read { c in
            try await c.query("\(unescaped: Self.mentorScenarioQuery) WHERE r.mentor_id = \(mentorID) ORDER BY s.id DESC", logger: self.logger)
                .collect().map(self.mentorScenario)
        }
    }

    public func allScenarios() async throws -> [(Scenario, [MentorScenario])] {
        let scenarios = try await read { c in
            try await c.query("SELECT \(unescaped: Self.scenarioColumns) FROM scenario s ORDER BY s.id DESC", logger: self.logger)
                .collect().map(Self.scenario)
        }
        let copies = try await read { c in
            try await c.query("\(unescaped: Self.mentorScenarioQuery) ORDER BY r.scenario_id, r.mentor_id", logger: self.logger)
                .collect().map(self.mentorScenario)
        }
        let byScenario = Dictionary(grouping: copies, by: \.scenario.id)
        return scenarios.map { ($0, byScenario[$0.id] ?? []) }
    }

    public func completeScenario(scenarioID: Int64, mentorID: UserID, reflection: String, at date: Date) async throws -> MentorScenario {
        try await write { c in
            try await c.query(
                """
                UPDATE scenario_recipient SET done_at = COALESCE(done_at, \(date.timeIntervalSince1970)), reflection = \(self.sealer.seal(reflection, field: .reflection))
                WHERE scenario_id = \(scenarioID) AND mentor_id = \(mentorID)
                """, logger: self.logger)
            guard
                let row = try await Self.first(
                    c.query(
                        """
                        \(unescaped: Self.mentorScenarioQuery) WHERE r.scenario_id = \(scenarioID) AND r.mentor_id = \(mentorID)
                        """, logger: self.logger))
            else { throw StoreError.notFound(.scenario) }
            return try self.mentorScenario(row)
        }
    }

    // MARK: Certifications

    static func certification(_ row: PostgresRow) throws -> Certification {
        let (id, mentor, name, expires) = try row.decode((Int64, UserID, String, Double).self)
        return Certification(id: id, mentorID: mentor, name: name, expiresAt: date(expires))
    }

    func replaceCertifications(_ certifications: [NewCertification], mentorID: UserID, _ c: PostgresConnection) async throws {
        let existing = try await c.query(
            "SELECT id, mentor_id, name, expires_at FROM certification WHERE mentor_id = \(mentorID)",
            logger: logger
        ).collect().map(Self.certification)
        var result: [Certification] = []
        for new in certifications {
            // An unchanged certification keeps its id, and so the warnings already sent for it.
            if let same = existing.first(where: { $0.name == new.name && $0.expiresAt == new.expiresAt }), !result.contains(same) {
                result.append(same)
                continue
            }
            let id = try await Self.one(
                c.query(
                    """
                    INSERT INTO certification (mentor_id, name, expires_at) VALUES (\(mentorID), \(new.name), \(new.expiresAt.timeIntervalSince1970))
                    RETURNING id
                    """, logger: logger)
            ).decode(Int64.self)
            result.append(Certification(id: id, mentorID: mentorID, name: new.name, expiresAt: new.expiresAt))
        }
        for old in existing where !result.contains(old) {
            try await c.query("DELETE FROM certification WHERE id = \(old.id)", logger: logger)
        }
    }

    public func certifications(mentorID: UserID) async throws -> [Certification] {
        try await read { c in
            try await c.query(
                "SELECT id, mentor_id, name, expires_at FROM certification WHERE mentor_id = \(mentorID) ORDER BY id",
                logger: self.logger
            ).collect().map(Self.certification)
        }
    }

    public func certifications(expiringBefore date: Date) async throws -> [Certification] {
        try await read { c in
            try await c.query(
                "SELECT id, mentor_id, name, expires_at FROM certification WHERE expires_at < \(date.timeIntervalSince1970) ORDER BY id",
                logger: self.logger
            ).collect().map(Self.certification)
        }
    }

    public func recordExpiryWarning(certificationID: Int64, threshold: Int, alsoCovers: [Int], notification: NewNotification, at date: Date)
        async throws -> NotificationItem?
    {
        try await write(appendsEvents: true) { c in
            // The primary key makes this exactly once, however many instances run the upkeep at the same time.
            let inserted = try await c.query(
                """
                INSERT INTO certification_warning (certification_id, threshold) VALUES (\(certificationID), \(threshold))
                ON CONFLICT DO NOTHING RETURNING certification_id
                """, logger: self.logger
            ).collect()
            guard !inserted.isEmpty else { return nil }
            for other in alsoCovers {
                try await c.query(
                    """
                    INSERT INTO certification_warning (certification_id, threshold) VALUES (\(certificationID), \(other)) ON CONFLICT DO NOTHING
                    """, logger: self.logger)
            }
            let item = try await self.insertRow(notification, at: date, c)
            try await self.appendCreatedEvents([item], at: date, c)
            return item
        }
    }
}
