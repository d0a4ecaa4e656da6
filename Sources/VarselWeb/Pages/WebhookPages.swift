import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// The administrator's webhooks screen of one integration: its addresses with their recent deliveries, the form
/// that adds one, and the page that shows a new address's secret once. Every decision is ``Webhooks``'s.
struct WebhookPages: PageScreen {
    let frame: PageFrame
    let configuration: VarselServices.Configuration
    let now: @Sendable () -> Date
    let integrations: Integrations
    let webhooks: Webhooks
}

extension WebhookPages {
    func addRoutes(to router: Router<VarselContext>) {
        router.get("integrations/:id/webhooks", use: { try await webhooksPage($0, $1, errors: [], values: EndpointValues(), status: .ok) })
        router.post("integrations/:id/webhooks", use: addEndpoint)
        router.post("integrations/:id/webhooks/:endpoint/remove", use: removeEndpoint)
    }

    /// The integration the path names, unrevoked; ``Webhooks/Refusal/unknownIntegration`` for any other.
    func integration(_ context: VarselContext, for actor: User) async throws -> Integration {
        guard let id = context.parameters.get("id").flatMap({ UserID($0) }) else { throw Webhooks.Refusal.unknownIntegration }
        // A store that does not answer is said as such (503), not as an unknown integration.
        let integration: Integration
        do {
            integration = try await integrations.integration(id, for: actor)
        } catch is Integrations.Refusal {
            throw Webhooks.Refusal.unknownIntegration
        }
        guard !integration.isRevoked else { throw Webhooks.Refusal.unknownIntegration }
        return integration
    }

    func webhooksPage(
        _ request: Request, _ context: VarselContext, errors: [FormError], values: EndpointValues, status: HTTPResponse.Status
    ) async throws -> Response {
        let identity = try signedIn(request, context).require(.admin)
        let integration = try await integration(context, for: identity.user)
        let resumePoint = try await self.resumePoint()
        let strings = Strings(identity.user.language)
        let name = integration.account.displayName
        let endpoints = try await webhooks.endpoints(integrationID: integration.id, for: identity.user)
        var rows: [EndpointRowView] = []
        for endpoint in endpoints {
            let deliveries = try await webhooks.deliveries(endpointID: endpoint.id, for: identity.user)
            rows.append(
                EndpointRowView(
                    id: "endpoint-\(endpoint.id)", url: endpoint.url, deliveriesHeading: strings.recentDeliveries(to: endpoint.url),
                    description: strings.webhookEndpointRow(
                        url: endpoint.url, eventCount: endpoint.events.count, addedAt: endpoint.createdAt, failingSince: endpoint.failingSince,
                        turnedOffAt: endpoint.disabledAt, timeZone: osloTimeZone),
                    deliveries: deliveries.map { delivery in
                        strings.webhookDeliveryRow(event: delivery.type.rawValue, state: Self.state(of: delivery), attempts: delivery.attempts)
                    },
                    removeAction: "/integrations/\(integration.id)/webhooks/\(endpoint.id)/remove", hasDeliveries: !deliveries.isEmpty))
        }
        let chosen = Set(values.events)
        let model = WebhooksPage(
            chrome: try await chrome(
                identity, resumePoint: resumePoint, title: strings.webhooksTitle(for: name), tab: .people,
                flash: flash(request, language: identity.user.language)),
            heading: strings.webhooksTitle(for: name), headingId: "webhooks-heading", intro: strings.webhooksIntro(for: name),
            errors: errors, hasErrors: !errors.isEmpty, count: strings.webhooksCount(endpoints.count), rows: rows,
            action: "/integrations/\(integration.id)/webhooks", values: values,
            events: WebhookEventType.allCases.map {
                KindOption(value: $0.rawValue, label: strings.webhookEventName($0.rawValue), isSelected: chosen.contains($0.rawValue))
            },
            strings: WebhookStrings(
                remove: strings.removeEndpointButton, noDeliveries: strings.noDeliveries,
                addHeading: strings.addEndpointHeading, url: strings.endpointURLField, urlHint: strings.endpointURLHint,
                eventsLegend: strings.endpointEventsLegend, add: strings.addEndpointButton, back: strings.integrationsTitle,
                errorSummary: strings.errorSummary))
        return try renderer.page("webhooks", model, status: status)
    }

    /// A delivery's state as its row says it.
    static func state(of delivery: WebhookDelivery) -> WebhookDeliveryState {
        switch delivery.outcome {
        case .delivered: .delivered
        case .dropped: .dropped
        case nil: delivery.attempts == 0 ? .waiting : .failing(reason: delivery.lastError ?? "")
        }
    }

    func addEndpoint(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.admin)
        let integration = try await integration(context, for: identity.user)
        let form = try await PageForm.decode(PageForm.NewEndpoint.self, from: request)
        let strings = Strings(identity.user.language)
        var values = EndpointValues(url: form.url ?? "", events: form.events ?? [])
        do {
            let added = try await webhooks.add(integrationID: integration.id, url: values.url, events: values.events, by: identity.user)
            let name = integration.account.displayName
            let resumePoint = try await self.resumePoint()
            // The secret is shown in the answer to the form, once; the page is not kept by the browser or a proxy.
            let model = SecretPage(
                chrome: try await chrome(
                    identity, resumePoint: resumePoint, title: strings.secretLabel, tab: .people, flash: strings.endpointAdded(for: name)),
                heading: strings.secretLabel, headingId: "secret-heading", url: added.endpoint.url,
                instructions: strings.secretInstructions(for: name), secretLabel: strings.secretLabel, secret: added.secret,
                back: strings.webhooksTitle(for: name), backPath: "/integrations/\(integration.id)/webhooks")
            var response = try renderer.page("webhook-secret", model)
            response.headers[.cacheControl] = "no-store"
            return response
        } catch let invalid as InvalidInput {
            let errors = invalid.issues.map { issue -> FormError in
                switch issue.field {
                case "url":
                    values.urlError = strings.endpointURLError
                    return FormError(field: strings.endpointURLField, fieldId: "endpoint-url", message: strings.endpointURLError)
                default:
                    values.eventsError = strings.endpointEventsError
                    return FormError(
                        field: strings.endpointEventsLegend, fieldId: "endpoint-event-assignment.created", message: strings.endpointEventsError)
                }
            }
            return try await webhooksPage(request, context, errors: errors, values: values, status: .unprocessableContent)
        }
    }

    func removeEndpoint(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.admin)
        let integration = try await integration(context, for: identity.user)
        guard let id = context.parameters.get("endpoint").flatMap({ Int64($0) }),
            try await webhooks.endpoints(integrationID: integration.id, for: identity.user).contains(where: { $0.id == id })
        else { throw Webhooks.Refusal.unknownEndpoint }
        try await webhooks.remove(id, by: identity.user)
        return .redirect(to: Flash.endpointRemoved.added(to: "/integrations/\(integration.id)/webhooks"), type: .normal)
    }
}

/// What was typed into the add-an-address form, kept when it is shown again with its mistakes.
struct EndpointValues {
    var url = ""
    var events: [String] = []
    var urlError: String?
    var eventsError: String?
}

/// An integration's webhooks page.
struct WebhooksPage {
    var chrome: PageChrome
    var heading: String
    var headingId: String
    var intro: String
    var errors: [FormError]
    var hasErrors: Bool
    /// How many addresses there are: `1 webhook address.`
    var count: String
    var rows: [EndpointRowView]
    var action: String
    var values: EndpointValues
    var events: [KindOption]
    var strings: WebhookStrings
}

/// One address in the list, with its recent deliveries.
struct EndpointRowView {
    var id: String
    /// The address, which ends the remove button's name and the deliveries' heading.
    var url: String
    var deliveriesHeading: String
    /// The row, whole, as the core says it.
    var description: String
    /// Each recent delivery, newest first, as the core says it.
    var deliveries: [String]
    var removeAction: String
    var hasDeliveries: Bool
}

struct WebhookStrings {
    var remove: String
    var noDeliveries: String
    var addHeading: String
    var url: String
    var urlHint: String
    var eventsLegend: String
    var add: String
    var back: String
    var errorSummary: String
}

/// The page that shows a new address's signing secret once.
struct SecretPage {
    var chrome: PageChrome
    var heading: String
    var headingId: String
    var url: String
    var instructions: String
    var secretLabel: String
    var secret: String
    var back: String
    var backPath: String
}
