import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// The Profile's "Text messages and email": a person's mobile number and email address, the codes that verify them,
/// and removing them; and the form on a person's page where their coordinator sets one (the code goes to the person).
extension ProfilePages {
    func addChannelRoutes(to router: Router<VarselContext>) {
        router.post("profile/channels/:channel", use: saveChannel)
        router.post("profile/channels/:channel/verify", use: verifyChannel)
        router.post("profile/channels/:channel/remove", use: removeChannel)
    }

    /// The section's view for `user`: one part per channel this Varsel offers; nil when it offers none.
    func channelsView(for user: User, errors: [FormError], typed: (channel: OutsideChannel, address: String)?) async throws -> ChannelsView? {
        let offered = OutsideChannel.allCases.filter(channels.offers)
        guard !offered.isEmpty else { return nil }
        let strings = Strings(user.language)
        let states = try await channels.channels(of: user.id)
        return ChannelsView(
            heading: strings.channelsHeading, intro: strings.channelsIntro,
            items: offered.map { channel in
                let state = states[channel]
                let key = channel.rawValue
                let shown = state.map { Strings.readable($0.address, channel: channel) }
                return ChannelView(
                    key: key, label: strings.channelAddressLabel(channel), hint: strings.channelAddressHint(channel),
                    line: strings.channelLine(channel, state: state),
                    address: typed?.channel == channel ? typed?.address ?? "" : shown ?? "",
                    inputType: channel == .textMessage ? "tel" : "email", autocomplete: channel == .textMessage ? "tel" : "email",
                    send: strings.sendCode(channel),
                    addressError: errors.first { $0.fieldId == "channel-\(key)-address" }?.message,
                    codeLabel: state?.codeExpiresAt != nil ? strings.codeLabel(sentTo: shown ?? "") : nil,
                    codeHint: strings.codeHint, codeError: errors.first { $0.fieldId == "channel-\(key)-code" }?.message,
                    verify: strings.verify(channel), remove: state != nil ? strings.removeChannel(channel) : nil)
            })
    }

    func saveChannel(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let channel = try ChannelsController.channel(context)
        let form = try await PageForm.decode(PageForm.ChannelAddress.self, from: request)
        let address = form.address ?? ""
        do {
            try await channels.start(channel, address: address, for: identity.user)
        } catch {
            guard let message = Self.message(for: error, channel: channel, language: identity.user.language) else { throw error }
            let strings = Strings(identity.user.language)
            return try await profilePage(
                .profile, request, context,
                errors: [
                    FormError(field: strings.channelAddressLabel(channel), fieldId: "channel-\(channel.rawValue)-address", message: message)
                ], channelAddress: (channel, address), status: .unprocessableContent)
        }
        return .redirect(to: Flash.codeSent(channel).added(to: "/profile"), type: .normal)
    }

    func verifyChannel(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let channel = try ChannelsController.channel(context)
        let form = try await PageForm.decode(PageForm.ChannelCode.self, from: request)
        do {
            try await channels.verify(channel, code: form.code ?? "", for: identity.user)
        } catch {
            guard let message = Self.message(for: error, channel: channel, language: identity.user.language) else { throw error }
            return try await profilePage(
                .profile, request, context,
                errors: [
                    FormError(field: Strings(identity.user.language).codeFieldName, fieldId: "channel-\(channel.rawValue)-code", message: message)
                ], status: .unprocessableContent)
        }
        return .redirect(to: Flash.channelVerified(channel).added(to: "/profile"), type: .normal)
    }

    func removeChannel(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context)
        let channel = try ChannelsController.channel(context)
        try await channels.remove(channel, for: identity.user)
        return .redirect(to: Flash.channelRemoved(channel).added(to: "/profile"), type: .normal)
    }

    /// What a form says when a code cannot be sent or accepted; nil for an error that is not about the input.
    static func message(for error: any Error, channel: OutsideChannel, language: Language) -> String? {
        let strings = Strings(language)
        switch error {
        case let invalid as InvalidInput:
            if invalid.issues.contains(where: { $0.field == "code" }) { return strings.invalidCode }
            return channel == .textMessage ? strings.invalidMobileNumber : strings.invalidEmailAddress
        case let refusal as ChannelVerificationError:
            switch refusal {
            case .unavailable: return strings.channelUnavailable
            case let .tooSoon(seconds): return strings.waitBeforeNewCode(seconds: seconds)
            case .notSent: return strings.codeNotSent
            case .refusedAddress: return strings.addressRefused(channel)
            case .noCode: return strings.noCodeWaiting
            case .expired: return strings.codeExpired
            case .tooManyWrongCodes: return strings.tooManyWrongCodes
            case let .wrongCode(triesLeft): return strings.wrongCode(triesLeft: triesLeft)
            }
        default:
            return nil
        }
    }
}

/// The Profile's channels section.
struct ChannelsView {
    var heading: String
    var intro: String
    var items: [ChannelView]
}

/// One channel: its state in a line, the address form, the code form while a code waits, and removing it.
struct ChannelView {
    var key: String
    var label: String
    var hint: String
    var line: String
    var address: String
    var inputType: String
    var autocomplete: String
    var send: String
    var addressError: String?
    /// `Code sent to +47 912 34 567` while a code waits; nil hides the code form.
    var codeLabel: String?
    var codeHint: String
    var codeError: String?
    var verify: String
    /// The remove button's words; nil when nothing is set.
    var remove: String?
}
