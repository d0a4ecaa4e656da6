import Foundation
import VarselCore

/// Everything Varsel keeps: users, sessions, notifications, contacts, assignments, certifications, preferences,
/// pushes, passkeys, integration tokens and their webhooks, notifications scheduled for later, when each person's
/// summary is due, mobile numbers and email addresses with their messages and the event log the live stream resumes
/// from — the role-sized stores together.
///
/// Each method is one consistent transaction. Implementations: the SQLite store (on a file, or in memory for tests)
/// and the PostgreSQL store; the contract tests hold them to the same behaviour, one suite per role. A service asks
/// for the role it needs.
public protocol VarselRepository: UserStore, NotificationStore, EventLogStore, AssignmentStore, TrainingStore,
    SignInThrottleStore, SealedDataStore, PushStore, PasskeyStore, IntegrationStore, ContactChannelStore, WebhookStore, ScheduledSendStore,
    SummaryStore, StoreCondition, Sendable
{}
