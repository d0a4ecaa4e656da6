import Foundation
import HTTPTypes
import Hummingbird
import VarselService
import VarselStore

/// An API error as `application/problem+json` (RFC 9457): a status, a short title, and a detail a developer
/// can act on. Details never carry personal data.
public struct Problem: HTTPResponseError, Sendable, Equatable {
    public var status: HTTPResponse.Status
    public var title: String
    public var detail: String
    /// Field-level errors, for forms and validation.
    public var errors: [FieldError]
    /// Extra response headers, such as `Retry-After` or `WWW-Authenticate`.
    public var headers: HTTPFields

    /// One invalid field and what is wrong with it.
    public struct FieldError: Codable, Sendable, Equatable {
        public var field: String
        public var message: String

        public init(field: String, message: String) {
            self.field = field
            self.message = message
        }
    }

    public init(_ status: HTTPResponse.Status, _ detail: String, errors: [FieldError] = [], headers: HTTPFields = [:]) {
        self.status = status
        self.title = status.reasonPhrase
        self.detail = detail
        self.errors = errors
        self.headers = headers
    }

    public static func badRequest(_ detail: String, errors: [FieldError] = []) -> Problem { Problem(.badRequest, detail, errors: errors) }

    /// The same problem with these field errors.
    func with(errors: [FieldError]) -> Problem {
        var problem = self
        problem.errors = errors
        return problem
    }
    public static func unprocessable(_ detail: String, errors: [FieldError] = []) -> Problem {
        Problem(.unprocessableContent, detail, errors: errors)
    }
    public static func notFound(_ detail: String) -> Problem { Problem(.notFound, detail) }
    public static func forbidden(_ detail: String) -> Problem { Problem(.forbidden, detail) }
    public static func conflict(_ detail: String) -> Problem { Problem(.conflict, detail) }
    /// The store cannot serve now: 503 (507 for a full disk) with `Retry-After`, so a client tries again later; a
    /// create sent again with its `Idempotency-Key` is stored once, whether or not the first one was.
    public static func unavailable(_ condition: StoreUnavailable) -> Problem {
        let status = condition == .diskFull ? HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage") : .serviceUnavailable
        return Problem(
            status,
            "\(condition.description) Try again in a few seconds; a request sent again with the same "
                + "Idempotency-Key is carried out once.", headers: [.retryAfter: "\(retryAfterSeconds)"])
    }

    /// The `Retry-After` of an answer refused while the store cannot serve, in seconds.
    public static let retryAfterSeconds = 5

    public static func unauthorized(_ detail: String) -> Problem {
        Problem(.unauthorized, detail, headers: [.wwwAuthenticate: "Bearer realm=\"varsel\""])
    }

    private struct Body: Encodable {
        var type: String
        var title: String
        var status: Int
        var detail: String
        var errors: [FieldError]?
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(status: status, headers: headerFields, body: .init(byteBuffer: ByteBuffer(bytes: try encoded())))
    }

    /// The problem's own headers and its type.
    var headerFields: HTTPFields {
        var fields = headers
        fields[.contentType] = "application/problem+json"
        return fields
    }

    /// The problem's JSON body.
    func encoded() throws -> Data {
        try JSONCoding.encoder.encode(
            Body(
                type: "about:blank", title: title, status: status.code, detail: detail,
                errors: errors.isEmpty ? nil : errors))
    }

    /// The problem that describes `error`; unknown errors become a 500 that reveals nothing.
    public static func from(_ error: any Error) -> Problem {
        switch error {
        case let problem as Problem:
            return problem
        case let invalid as InvalidInput:
            return .unprocessable(invalid.summary, errors: invalid.issues.map { FieldError(field: $0.field, message: $0.message) })
        case let store as StoreError:
            switch store {
            case .conflict, .alreadyResponded, .notAllowed: return .conflict(store.description)
            case .notFound, .unknownRecipient: return .notFound(store.description)
            case .unknownStoredValue, .dataKeyMissing, .dataKeyRequired, .personKeyMissing:
                // The store holds something this version cannot read: a server fault, named in the log, not to the client.
                return Problem(.internalServerError, "The server failed to handle the request. It has been logged; please try again.")
            case .idempotencyKeyReused:
                return .unprocessable("This Idempotency-Key was already used with a different request body. Use a new key for a new request.")
            }
        case let unavailable as StoreUnavailable:
            return .unavailable(unavailable)
        case is DataExport.Refused:
            return .notFound("No such contact, or you are not an admin.")
        case is ContactErasure.Refused:
            return .notFound("No such contact, or not one whose details you may erase.")
        case let refusal as UserAdministration.Refusal:
            switch refusal {
            case .unknownPerson, .linkNotValid: return .notFound(refusal.sentence)
            case .adminOnly, .ownAccount: return .forbidden(refusal.sentence)
            }
        case let refusal as Integrations.Refusal:
            switch refusal {
            case .unknownIntegration: return .notFound(refusal.sentence)
            case .adminOnly: return .forbidden(refusal.sentence)
            }
        case let refusal as Webhooks.Refusal:
            switch refusal {
            case .unknownIntegration, .unknownEndpoint: return .notFound(refusal.sentence)
            case .adminOnly: return .forbidden(refusal.sentence)
            }
        case let refusal as ScheduledSends.Refusal:
            switch refusal {
            case .unknown: return .notFound(refusal.sentence)
            case .noLongerWaiting: return .conflict(refusal.sentence)
            }
        case let refusal as ChannelVerificationError:
            return refusal.problem
        case let http as HTTPError:
            let detail = http.body ?? defaultDetail(for: http.status)
            return Problem(http.status, detail, headers: http.headers)
        case let response as any HTTPResponseError:
            return Problem(response.status, defaultDetail(for: response.status))
        default:
            return Problem(.internalServerError, "The server failed to handle the request. It has been logged; please try again.")
        }
    }

    static func defaultDetail(for status: HTTPResponse.Status) -> String {
        switch status {
        case .notFound: "No such resource. See /api/v1/openapi.yaml for the routes."
        case .methodNotAllowed: "This method is not allowed on this resource."
        case .contentTooLarge: "The request body is larger than \(Limits.maxBodyBytes) bytes."
        default: status.reasonPhrase
        }
    }
}

/// Turns every error, including the router's own 404 and 405, into a problem+json response.
public struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let redirect as RedirectError {
            return try redirect.response(from: request, context: context)
        } catch {
            let problem = Problem.from(error)
            // An outage is logged once, when it begins, by the store's health; not once per request it refuses.
            if problem.status.code >= 500, !(error is StoreUnavailable) {
                // The error's description may hold request data; log only its type.
                context.logger.error("request failed", metadata: ["error.type": "\(type(of: error))"])
            }
            return try problem.response(from: request, context: context)
        }
    }
}
