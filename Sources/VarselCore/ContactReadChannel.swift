import Foundation

/// Where someone read a contact's personal details.
public enum ContactReadChannel: String, Sendable, Codable, Hashable, CaseIterable {
    /// The contact's page in the web client.
    case contactPage = "contact-page"
    /// `GET /api/v1/contacts/{id}`.
    case contactAPI = "contact-api"
    /// `GET /api/v1/assignments/{id}`, which carries the contact while the reader may see it.
    case assignmentAPI = "assignment-api"
    /// A Web Push whose lock-screen text showed the details (the mentor allowed it).
    case push
    /// An admin's download of everything stored about the contact.
    case export
}
