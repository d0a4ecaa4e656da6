import Foundation
import VarselCore
import VarselStore

/// Training scenarios after they are published: the coordinator's view of them, and a mentor marking one done with a
/// reflection.
public struct ScenarioProgress: Sendable {
    let repository: any TrainingStore
    let now: @Sendable () -> Date

    public init(repository: any TrainingStore, now: @escaping @Sendable () -> Date) {
        self.repository = repository
        self.now = now
    }

    /// The scenarios a coordinator published (all of them for an admin), each with its mentors' progress.
    public func published(visibleTo user: User) async throws -> [(Scenario, [MentorScenario])] {
        try await repository.allScenarios().filter { user.role == .admin || $0.0.coordinatorID == user.id }
    }

    /// The scenarios published to `mentorID`, newest first, with their progress.
    public func scenarios(ofMentor mentorID: UserID) async throws -> [MentorScenario] {
        try await repository.scenarios(forMentor: mentorID)
    }

    /// `mentorID`'s copy of scenario `scenarioID`; nil when it was not published to them.
    public func copy(of scenarioID: Int64, forMentor mentorID: UserID) async throws -> MentorScenario? {
        try await repository.scenarios(forMentor: mentorID).first { $0.scenario.id == scenarioID }
    }

    /// Marks scenario `scenarioID` done for `mentorID` with their reflection (validated here; it may be empty).
    public func complete(_ scenarioID: Int64, by mentorID: UserID, reflection: String) async throws -> MentorScenario {
        let reflection = try Validation.reflection(reflection)
        return try await repository.completeScenario(scenarioID: scenarioID, mentorID: mentorID, reflection: reflection, at: now())
    }
}
