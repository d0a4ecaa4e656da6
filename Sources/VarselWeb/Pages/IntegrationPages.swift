import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// The administrator's integration tokens screens: the list with its revoke buttons and the form that makes a token,
/// and the page that shows a new token once. Every decision is ``Integrations``'s.
struct IntegrationPages: PageScreen {
    let frame: PageFrame
    let configuration: VarselServices.Configuration
    let directory: Directory
    let now: @Sendable () -> Date
    let integrations: Integrations
}

extension IntegrationPages {
    func addRoutes(to router: Router<VarselContext>) {
        router.get("integrations", use: { try await integrationsPage($0, $1, errors: [], values: TokenValues(), status: .ok) })
        router.post("integrations", use: makeToken)
        router.get("integrations/:id/token", use: shownToken)
        router.post("integrations/:id/revoke", use: revokeToken)
    }

    func integrationsPage(
        _ request: Request, _ context: VarselContext, errors: [FormError], values: TokenValues,
        status: HTTPResponse.Status
    ) async throws -> Response {
        let identity = try signedIn(request, context).require(.admin)
        let resumePoint = try await self.resumePoint()
        let strings = Strings(identity.user.language)
        let now = now()
        let integrations = try await integrations.list(for: identity.user)
        let names = try await directory.displayNames()
        let chosenRole = values.role.isEmpty ? Role.coordinator.rawValue : values.role
        let model = IntegrationsPage(
            chrome: try await chrome(
                identity, resumePoint: resumePoint, title: strings.integrationsTitle, tab: .people,
                flash: flash(request, language: identity.user.language)),
            heading: strings.integrationsTitle, headingId: "integrations-heading", intro: strings.integrationsIntro,
            errors: errors, hasErrors: !errors.isEmpty, count: strings.integrationsCount(integrations.count),
            rows: integrations.map { integration in
                let summary = IntegrationSummary(
                    name: integration.account.displayName, role: integration.account.role,
                    madeAt: integration.account.createdAt, madeBy: integration.createdBy.map { names[$0] ?? "#\($0)" },
                    lastUsedAt: integration.lastUsedAt, revokedAt: integration.account.deactivatedAt)
                return IntegrationRowView(
                    id: "integration-\(integration.id)", name: summary.name,
                    description: strings.integrationRow(summary, now: now, timeZone: osloTimeZone),
                    revokedMark: integration.isRevoked ? strings.revokedMark : nil,
                    revokeAction: integration.isRevoked ? nil : "/integrations/\(integration.id)/revoke",
                    webhooksPath: integration.isRevoked ? nil : "/integrations/\(integration.id)/webhooks",
                    webhooksLink: strings.webhooksTitle(for: integration.account.displayName))
            },
            values: values,
            roles: [Role.coordinator, .admin].map {
                KindOption(value: $0.rawValue, label: PeoplePages.capitalized(strings.roleName($0)), isSelected: $0.rawValue == chosenRole)
            },
            strings: IntegrationStrings(
                revoke: strings.revokeButton, makeHeading: strings.makeTokenHeading, name: strings.tokenNameField,
                nameHint: strings.tokenNameHint, role: strings.tokenRoleField, make: strings.makeTokenButton,
                back: strings.peopleTitle, errorSummary: strings.errorSummary))
        return try renderer.page("integrations", model, status: status)
    }

    func makeToken(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.admin)
        let form = try await PageForm.decode(PageForm.NewToken.self, from: request)
        let strings = Strings(identity.user.language)
        var values = TokenValues(name: form.name ?? "", role: form.role ?? Role.coordinator.rawValue)
        do {
            let issued = try await integrations.create(name: values.name, role: values.role, by: identity.user)
            let path = TokenHandover.path(for: issued.integration.id)
            var response = Response.redirect(to: path, type: .normal)
            response.setCookie(
                TokenHandover.handover.cookie(
                    try TokenHandover.handover.seal(issued.token, subject: "\(issued.integration.id)", session: identity.session),
                    path: path, secure: configuration.usesSecureCookies))
            return response
        } catch let invalid as InvalidInput {
            let errors = invalid.issues.map { issue -> FormError in
                switch issue.field {
                case "name":
                    let message = CoordinatorPages.formMessage(issue, strings: strings)
                    values.nameError = message
                    return FormError(field: strings.tokenNameField, fieldId: "token-name", message: message)
                default: return FormError(field: strings.tokenRoleField, fieldId: "token-role", message: issue.message)
                }
            }
            return try await integrationsPage(request, context, errors: errors, values: values, status: .unprocessableContent)
        }
    }

    /// The page with a new token, shown once: the handed-over token is cleared as it is shown, and without one the
    /// list says it was shown already.
    func shownToken(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.admin)
        guard let id = context.parameters.get("id").flatMap({ UserID($0) }) else { throw Integrations.Refusal.unknownIntegration }
        let integration = try await integrations.integration(id, for: identity.user)
        let path = TokenHandover.path(for: id)
        let cleared = TokenHandover.handover.cleared(path: path, secure: configuration.usesSecureCookies)
        guard let sealed = request.cookies[TokenHandover.handover.cookieName]?.value,
            let token = TokenHandover.handover.open(sealed, subject: "\(id)", session: identity.session), !integration.isRevoked
        else {
            var response = Response.redirect(to: Flash.tokenShownOnce.added(to: "/integrations"), type: .normal)
            response.setCookie(cleared)
            return response
        }
        let resumePoint = try await self.resumePoint()
        let strings = Strings(identity.user.language)
        let name = integration.account.displayName
        let model = TokenPage(
            chrome: try await chrome(
                identity, resumePoint: resumePoint, title: strings.tokenHeading(for: name), tab: .people,
                flash: strings.tokenMade(for: name)),
            heading: strings.tokenHeading(for: name), headingId: "token-heading", instructions: strings.tokenInstructions(for: name),
            tokenLabel: strings.tokenLabel, token: token, back: strings.integrationsTitle)
        var response = try renderer.page("integration-token", model)
        response.headers[.cacheControl] = "no-store"
        response.setCookie(cleared)
        return response
    }

    func revokeToken(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.admin)
        guard let id = context.parameters.get("id").flatMap({ UserID($0) }) else { throw Integrations.Refusal.unknownIntegration }
        try await integrations.revoke(id, by: identity.user)
        return .redirect(to: Flash.tokenRevoked.added(to: "/integrations"), type: .normal)
    }
}

/// What was typed into the make-a-token form, kept when it is shown again with its mistakes.
struct TokenValues {
    var name = ""
    var role = ""
    var nameError: String?
}

/// The integration tokens page.
struct IntegrationsPage {
    var chrome: PageChrome
    var heading: String
    var headingId: String
    var intro: String
    var errors: [FormError]
    var hasErrors: Bool
    /// How many tokens there are: `2 integration tokens.`
    var count: String
    var rows: [IntegrationRowView]
    var values: TokenValues
    var roles: [KindOption]
    var strings: IntegrationStrings
}

/// One token in the list.
struct IntegrationRowView {
    var id: String
    /// The system's name, which ends the revoke button's name.
    var name: String
    /// The row, whole, as the core says it.
    var description: String
    /// A revoked token's visible mark (`Revoked`), hidden from screen readers: ``description`` says it already.
    var revokedMark: String?
    /// Where the revoke button posts; nil once revoked.
    var revokeAction: String?
    /// The token's webhooks page; nil once revoked.
    var webhooksPath: String?
    /// The link's words, naming the system: `Webhooks for Member system`.
    var webhooksLink: String
}

struct IntegrationStrings {
    var revoke: String
    var makeHeading: String
    var name: String
    var nameHint: String
    var role: String
    var make: String
    var back: String
    var errorSummary: String
}

/// The page that shows a new token once.
struct TokenPage {
    var chrome: PageChrome
    var heading: String
    var headingId: String
    var instructions: String
    var tokenLabel: String
    var token: String
    var back: String
}
