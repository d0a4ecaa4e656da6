import Foundation
import VarselCore

/// Training scenarios and the mentors' certifications.
public protocol TrainingStore: Sendable {
    // MARK: Scenarios
    /// Publishes a training scenario to `mentorIDs` with one notification each: the scenario, its mentors and the
    /// first notifications in one transaction, the rest of a fan-out (``FanOut``) after it. A scenario a scheduled
    /// send publishes (`scheduledSendID`) is published once: asked again, this returns the scenario it published, and
    /// no notifications, making nothing.
    func publishScenario(
        title: String, body: String, coordinatorID: UserID?, mentorIDs: [UserID], scheduledSendID: ScheduledSendID?, at date: Date,
        makeNotification: @escaping @Sendable (_ scenarioID: Int64, _ mentorID: UserID) -> NewNotification
    ) async throws -> (Scenario, [NotificationItem])
    /// A mentor's scenarios, newest first.
    func scenarios(forMentor mentorID: UserID) async throws -> [MentorScenario]
    /// Every scenario, newest first, with each mentor's copy (the coordinators' view).
    func allScenarios() async throws -> [(Scenario, [MentorScenario])]
    /// Marks a mentor's scenario done with their reflection (a later call replaces the reflection, keeping the
    /// first time); throws ``StoreError/notFound(_:)`` when it was not published to them.
    func completeScenario(scenarioID: Int64, mentorID: UserID, reflection: String, at date: Date) async throws -> MentorScenario

    // MARK: Certifications
    func certifications(mentorID: UserID) async throws -> [Certification]
    /// Every certification expiring before `date`.
    func certifications(expiringBefore date: Date) async throws -> [Certification]
    /// Records that the warning `threshold` days before expiry was sent, and creates its notification — once:
    /// returns nil, creating nothing, when that warning was recorded before. `alsoCovers` lists larger
    /// thresholds the same warning makes unnecessary.
    func recordExpiryWarning(certificationID: Int64, threshold: Int, alsoCovers: [Int], notification: NewNotification, at date: Date) async throws
        -> NotificationItem?
}

extension TrainingStore {
    /// Publishes a training scenario now, as a coordinator does from the Scenarios page.
    public func publishScenario(
        title: String, body: String, coordinatorID: UserID?, mentorIDs: [UserID], at date: Date,
        makeNotification: @escaping @Sendable (_ scenarioID: Int64, _ mentorID: UserID) -> NewNotification
    ) async throws -> (Scenario, [NotificationItem]) {
        try await publishScenario(
            title: title, body: body, coordinatorID: coordinatorID, mentorIDs: mentorIDs, scheduledSendID: nil, at: date,
            makeNotification: makeNotification)
    }
}
