import Foundation
import VarselCore
import VarselStore

/// A user's own settings: their notification preferences and their language.
///
/// Saving preferences also tells the user's open live streams, whose announcements depend on them, and sets when
/// their next summary is due.
public struct AccountSettings: Sendable {
    let repository: any UserStore
    let broker: EventBroker
    let summaries: Summaries

    public init(repository: any UserStore, broker: EventBroker, summaries: Summaries) {
        self.repository = repository
        self.broker = broker
        self.summaries = summaries
    }

    /// `userID`'s notification preferences (the standard set until they change one).
    public func preferences(of userID: UserID) async throws -> NotificationPreferences {
        try await repository.preferences(for: userID)
    }

    /// Saves `preferences` for `userID` and tells their open streams.
    public func savePreferences(_ preferences: NotificationPreferences, for userID: UserID) async throws {
        try await repository.setPreferences(preferences, for: userID)
        try await summaries.schedule(for: userID, preferences: preferences)
        broker.preferencesChanged(userID: userID)
    }

    /// Sets the language `userID` reads Varsel in.
    public func setLanguage(_ language: Language, for userID: UserID) async throws {
        try await repository.setLanguage(language, userID: userID)
    }
}
