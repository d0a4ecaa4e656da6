import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// `/api/v1/me/channels` and `/api/v1/users/{id}/channels`: a person's mobile number and email address, and the
/// codes that verify them. A person sets their own; a coordinator or admin may set one for a person they manage
/// (the code goes to that person, who types it back).
struct ChannelsController {
    let users: UserAdministration
    let channels: ContactChannels

    func addRoutes(to router: some RouterMethods<VarselContext>) {
        router.get("me/channels", use: mine)
        router.put("me/channels/:channel", use: setMine)
        router.delete("me/channels/:channel", use: removeMine)
        router.post("me/channels/:channel/verification", use: verifyMine)
        router.get("users/:id/channels", use: theirs)
        router.put("users/:id/channels/:channel", use: setTheirs)
    }

    /// One channel as the API shows it.
    struct ChannelResource: Encodable {
        var channel: OutsideChannel
        var address: String
        var verified: Bool
        var verifiedAt: Date?
        /// Until when the code last sent works; absent when none waits.
        var codeExpiresAt: Date?
        /// Whether this Varsel sends messages of this kind at all.
        var offered: Bool
    }

    struct AddressRequest: Decodable { var address: String }
    struct CodeRequest: Decodable { var code: String }

    func mine(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requirePerson()
        return try await list(of: identity.user)
    }

    func theirs(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.require(.admin, .coordinator)
        let (person, _) = try await users.details(of: try PathID.of(context, as: UserID.self), for: identity.user)
        return try await list(of: person.user)
    }

    func setMine(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requirePerson()
        return try await start(for: identity.user, request, context)
    }

    func setTheirs(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.require(.admin, .coordinator)
        let (person, _) = try await users.details(of: try PathID.of(context, as: UserID.self), for: identity.user)
        return try await start(for: person.user, request, context)
    }

    func verifyMine(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requirePerson()
        let channel = try Self.channel(context)
        let body = try await JSONCoding.decode(CodeRequest.self, from: request)
        try await channels.verify(channel, code: body.code, for: identity.user)
        context.logger.info("channel verified", metadata: ["person.id": "\(identity.user.id)", "channel": "\(channel.rawValue)"])
        return try await one(channel, of: identity.user, status: .ok)
    }

    func removeMine(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requirePerson()
        let channel = try Self.channel(context)
        guard try await channels.remove(channel, for: identity.user) else { throw Problem.notFound("No such channel is set.") }
        return Response(status: .noContent)
    }

    private func start(for person: User, _ request: Request, _ context: VarselContext) async throws -> Response {
        let channel = try Self.channel(context)
        let body = try await JSONCoding.decode(AddressRequest.self, from: request)
        try await channels.start(channel, address: body.address, for: person)
        context.logger.info("channel code sent", metadata: ["person.id": "\(person.id)", "channel": "\(channel.rawValue)"])
        return try await one(channel, of: person, status: .accepted)
    }

    private func list(of person: User) async throws -> Response {
        let states = try await channels.channels(of: person.id)
        return try JSONCoding.response(OutsideChannel.allCases.compactMap { channel in states[channel].map { resource($0) } })
    }

    private func one(_ channel: OutsideChannel, of person: User, status: HTTPResponse.Status) async throws -> Response {
        guard let state = try await channels.channels(of: person.id)[channel] else { throw Problem.notFound("No such channel is set.") }
        return try JSONCoding.response(resource(state), status: status)
    }

    private func resource(_ state: ContactChannelState) -> ChannelResource {
        ChannelResource(
            channel: state.channel, address: state.address, verified: state.isVerified, verifiedAt: state.verifiedAt,
            codeExpiresAt: state.codeExpiresAt, offered: channels.offers(state.channel))
    }

    /// The channel named in the path: `sms` or `email`.
    static func channel(_ context: VarselContext) throws -> OutsideChannel {
        guard let raw = context.parameters.get("channel"), let channel = OutsideChannel(rawValue: raw) else {
            throw Problem.notFound("No such channel: the channel in the path is sms or email.")
        }
        return channel
    }
}

extension ChannelVerificationError {
    /// The problem the API answers: never the address or the code.
    var problem: Problem {
        switch self {
        case .unavailable: .conflict("This Varsel sends no messages of this kind: its operator has not set it up.")
        case let .tooSoon(seconds):
            Problem(
                .tooManyRequests, "A code was sent less than a minute ago; ask again after Retry-After seconds.",
                headers: [.retryAfter: "\(seconds)"])
        case .notSent: Problem(.serviceUnavailable, "The code could not be sent now; try again in a minute.", headers: [.retryAfter: "60"])
        case .refusedAddress:
            .unprocessable(
                "The gateway or the mail server refused this address.",
                errors: [.init(field: "address", message: "refused by the gateway or the mail server")])
        case .noCode: .conflict("No code waits for this channel: ask for a new one by setting the address again.")
        case .expired: .unprocessable("The code has expired: ask for a new one.", errors: [.init(field: "code", message: "expired")])
        case .tooManyWrongCodes: .conflict("Too many wrong codes: ask for a new one by setting the address again.")
        case let .wrongCode(triesLeft):
            .unprocessable("The code is wrong.", errors: [.init(field: "code", message: "wrong; \(triesLeft) tries left")])
        }
    }
}
