import Foundation
import VarselCore
import VarselMessaging

/// The text messages and emails this Varsel can send, as its operator set them up.
public struct OutsideMessaging: Sendable {
    public var textMessages: (any TextMessageGateway)?
    public var mail: (any MailTransport)?
    /// The name and address emails come from: `Varsel`, `varsel@example.org`.
    public var mailFromName: String
    public var mailFromAddress: String
    /// Varsel's public origin, where a message's one link goes; asked at each message, as for pushes.
    public var origin: @Sendable () -> URL

    public init(
        textMessages: (any TextMessageGateway)? = nil, mail: (any MailTransport)? = nil, mailFromName: String = "Varsel",
        mailFromAddress: String = "varsel@localhost", origin: @escaping @Sendable () -> URL = { URL(string: "http://localhost:8080")! }
    ) {
        self.textMessages = textMessages
        self.mail = mail
        self.mailFromName = mailFromName
        self.mailFromAddress = mailFromAddress
        self.origin = origin
    }

    /// The one link a message carries: `path` on Varsel's public origin (`https://varsel.example.org/notifications`).
    func link(to path: String) -> String {
        origin().absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + path
    }

    /// Whether `channel` can send anything here.
    public func offers(_ channel: OutsideChannel) -> Bool {
        switch channel {
        case .textMessage: textMessages != nil
        case .email: mail != nil
        }
    }

    /// Sends `text` (and, for an email, `subject` and `html`) to `address` through `channel`; throws
    /// ``OutsideSendError``, never naming the address or the words.
    func send(_ channel: OutsideChannel, to address: String, name: String, subject: String, text: String, html: String, language: Language)
        async throws
    {
        do {
            switch channel {
            case .textMessage:
                guard let textMessages else { throw OutsideSendError.permanent }
                try await textMessages.send(to: address, text: text)
            case .email:
                guard let mail else { throw OutsideSendError.permanent }
                try await mail.send(
                    MailMessage(
                        fromName: mailFromName, fromAddress: mailFromAddress, to: address, subject: subject,
                        plainText: text, html: html, language: language.rawValue))
            }
        } catch let error as OutsideSendError {
            throw error
        } catch TextMessageSendError.permanent, MailSendError.permanent {
            throw OutsideSendError.permanent
        } catch {
            throw OutsideSendError.transient
        }
    }
}
