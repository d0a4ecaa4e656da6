import Foundation
import VarselCore
import VarselStore

/// A mentor's work on the training scenarios published to them: marking one done with a reflection.
public struct ScenarioProgress: Sendable {
    let repository: any VarselRepository
    let now: @Sendable () -> Date

    public init(repository: any VarselRepository, now: @escaping @Sendable () -> Date) {
        self.repository = repository
        self.now = now
    }

    /// Marks scenario `scenarioID` done for `mentorID` with their reflection (validated here; it may be empty).
    public func complete(_ scenarioID: Int64, by mentorID: Int64, reflection: String) async throws -> MentorScenario {
        let reflection = try Validation.reflection(reflection)
        return try await repository.completeScenario(scenarioID: scenarioID, mentorID: mentorID, reflection: reflection, at: now())
    }
}
