import Foundation
import HTTPTypes
import Hummingbird
import VarselCore
import VarselService
import VarselStore

/// Training scenarios: a mentor's list and a scenario's page with the reflection form; for coordinators, the
/// scenarios they published with who has done them, and the form that publishes a new one, now or at a time.
struct ScenarioPages: PageScreen {
    let frame: PageFrame
    let directory: Directory
    let sender: NotificationSender
    let scenarios: ScenarioProgress
    let scheduledSends: ScheduledSends
    let now: @Sendable () -> Date
}

extension ScenarioPages {
    func addRoutes(to router: Router<VarselContext>) {
        router.get("scenarios", use: { try await scenariosPage($0, $1) })
        router.get("scenarios/:id", use: { try await scenarioPage($0, context: $1) })
        router.post("scenarios/:id/done", use: completeScenario)
        router.post("coordinator/scenarios", use: publishScenario)
    }

    func scenariosPage(
        _ request: Request, _ context: VarselContext, errors: [FormError] = [], values: PageForm.Scenario? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let identity = try signedIn(request, context)
        let resumePoint = try await self.resumePoint()
        try await markFollowedNotificationRead(request, identity)
        let user = identity.user
        let strings = Strings(user.language)
        var groups: [ListGroup] = []
        var publish: PublishView?
        if user.role == .mentor {
            let mine = try await scenarios.scenarios(ofMentor: user.id)
            groups = [false, true].map { done in
                let rows = mine.filter { ($0.doneAt != nil) == done }
                return ListGroup(
                    heading: strings.scenarioGroupHeading(done: done, count: rows.count), headingId: done ? "scenarios-done" : "scenarios-to-do",
                    items: rows.map {
                        LinkItem(
                            text: strings.scenarioRow(title: $0.scenario.title, doneAt: $0.doneAt, timeZone: osloTimeZone),
                            href: "/scenarios/\($0.scenario.id)")
                    })
            }
            if mine.isEmpty { groups = [] }
        } else {
            let published = try await scenarios.published(visibleTo: user)
            groups = [
                ListGroup(
                    heading: strings.publishedScenariosHeading, headingId: "scenarios-published",
                    items: published.map { scenario, copies in
                        LinkItem(
                            text: strings.scenarioProgress(title: scenario.title, done: copies.filter { $0.doneAt != nil }.count, of: copies.count),
                            href: "/scenarios/\(scenario.id)")
                    })
            ]
            let chosen = Set(values?.mentors ?? [])
            publish = PublishView(
                title: values?.title ?? "", body: values?.body ?? "", toAll: values?.audience != "chosen",
                mentors: try await directory.activeMentors().map {
                    MentorOption(id: $0.id, name: $0.displayName, isSelected: chosen.contains($0.id.rawValue))
                },
                titleError: errors.first { $0.fieldId == "scenario-title" }?.message,
                bodyError: errors.first { $0.fieldId == "scenario-body" }?.message,
                mentorsError: errors.first { $0.fieldId == "scenario-audience-all" }?.message,
                sendTime: values?.sendTime ?? "", sendDay: values?.sendDay ?? "",
                sendTimeError: errors.first { $0.fieldId == "send-time" }?.message, sendDayError: errors.first { $0.fieldId == "send-day" }?.message,
                strings: PublishStrings(
                    heading: strings.publishScenarioHeading, title: strings.titleField, body: strings.scenarioText,
                    audience: strings.publishTo, all: strings.allMentors, chosen: strings.chosenMentors, publish: strings.publish,
                    sendLaterAt: strings.sendLaterAt, sendLaterOn: strings.sendLaterOn, sendLaterHint: strings.sendLaterHint))
        }
        let title = strings.scenariosTitle
        let model = ScenariosPage(
            chrome: try await chrome(
                identity, resumePoint: resumePoint, title: title, tab: .scenarios, flash: flash(request, language: user.language)),
            heading: title, headingId: Screen.scenario.headingElementID, focusHeading: request.uri.queryParameters["from"] == "notification",
            groups: groups, emptyText: groups.isEmpty ? strings.noScenarios : nil, errors: errors, hasErrors: !errors.isEmpty,
            publish: publish, strings: ScenarioStrings(errorSummary: strings.errorSummary))
        return try renderer.page("scenarios", model, status: status)
    }

    /// A scenario's page; after a refused reflection, with the reflection as typed and what is wrong with it.
    func scenarioPage(
        _ request: Request, context: VarselContext, reflection typed: String? = nil, errors: [FormError] = [],
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let identity = try signedIn(request, context)
        let resumePoint = try await self.resumePoint()
        let id = try PathID.of(context)
        try await markFollowedNotificationRead(request, identity)
        let user = identity.user
        let strings = Strings(user.language)
        var scenario: Scenario
        var mine: MentorScenario?
        var progress: [String] = []
        if user.role == .mentor {
            guard let copy = try await scenarios.scenarios(ofMentor: user.id).first(where: { $0.scenario.id == id }) else {
                throw Problem.notFound("You have no scenario with that id.")
            }
            scenario = copy.scenario
            mine = copy
        } else {
            guard let (found, copies) = try await scenarios.published(visibleTo: user).first(where: { $0.0.id == id }) else {
                throw Problem.notFound("You published no scenario with that id.")
            }
            scenario = found
            let names = try await directory.displayNames()
            progress = copies.map { copy in
                let state = strings.scenarioRow(title: names[copy.mentorID] ?? "", doneAt: copy.doneAt, timeZone: osloTimeZone)
                return copy.reflection.isEmpty ? state : "\(state): \(copy.reflection)"
            }
        }
        let model = ScenarioPage(
            chrome: try await chrome(
                identity, resumePoint: resumePoint, title: scenario.title, tab: .scenarios, flash: flash(request, language: user.language)),
            heading: scenario.title, headingId: Screen.scenario.headingElementID, focusHeading: request.uri.queryParameters["from"] == "notification",
            paragraphs: scenario.body.components(separatedBy: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty },
            id: scenario.id, state: mine.map { strings.scenarioRow(title: scenario.title, doneAt: $0.doneAt, timeZone: osloTimeZone) },
            reflection: typed ?? mine?.reflection ?? "", reflectionError: errors.first?.message, isMentor: mine != nil, progress: progress,
            errors: errors, hasErrors: !errors.isEmpty,
            strings: ScenarioDetailStrings(
                reflection: strings.reflectionField, hint: strings.reflectionHint, save: strings.markScenarioDone,
                progress: strings.scenarioProgressHeading, errorSummary: strings.errorSummary))
        return try renderer.page("scenario", model, status: status)
    }

    func completeScenario(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.mentor)
        let id = try PathID.of(context)
        let form = try await PageForm.decode(PageForm.Reflection.self, from: request)
        do {
            _ = try await scenarios.complete(id, by: identity.user.id, reflection: form.reflection ?? "")
        } catch let invalid as InvalidInput {
            let strings = Strings(identity.user.language)
            let errors = invalid.issues.map {
                FormError(field: strings.reflectionField, fieldId: "reflection", message: CoordinatorPages.formMessage($0, strings: strings))
            }
            return try await scenarioPage(request, context: context, reflection: form.reflection ?? "", errors: errors, status: .unprocessableContent)
        }
        return .redirect(to: Flash.scenarioDone.added(to: "/scenarios/\(id)"), type: .normal)
    }

    func publishScenario(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try signedIn(request, context).require(.coordinator, .admin)
        let form = try await PageForm.decode(PageForm.Scenario.self, from: request)
        let strings = Strings(identity.user.language)
        var errors: [FormError] = []
        var valid: (title: String, body: String)?
        do { valid = try Validation.scenario(title: form.title ?? "", body: form.body ?? "") } catch {
            for issue in error.issues {
                let isTitle = issue.field == "title"
                errors.append(
                    FormError(
                        field: isTitle ? strings.titleField : strings.scenarioText, fieldId: isTitle ? "scenario-title" : "scenario-body",
                        message: CoordinatorPages.formMessage(issue, strings: strings)))
            }
        }
        let mentors = try await directory.activeMentors()
        let chosen = form.audience == "chosen" ? mentors.filter { (form.mentors ?? []).contains($0.id.rawValue) } : mentors
        if chosen.isEmpty { errors.append(FormError(field: strings.publishTo, fieldId: "scenario-audience-all", message: strings.chooseMentors)) }
        // The same "send later" fields as the Send page: empty publishes now.
        var sendAt: Date?
        do {
            sendAt = try Validation.sendMoment(
                time: form.sendTime ?? "", day: form.sendDay ?? "", now: now(), timeField: "sendAt", dayField: "sendDay")
        } catch {
            errors += error.issues.map { Self.sendLaterError($0, strings: strings) }
        }
        guard errors.isEmpty, let valid else {
            return try await scenariosPage(request, context, errors: errors, values: form, status: .unprocessableContent)
        }
        guard let sendAt else {
            _ = try await sender.publishScenario(title: valid.title, body: valid.body, from: identity.user.id, to: chosen)
            return .redirect(to: Flash.scenarioPublished.added(to: "/scenarios"), type: .normal)
        }
        do {
            _ = try await scheduledSends.scheduleScenario(
                title: valid.title, body: valid.body, from: identity.user.id, to: chosen.map(\.id), at: sendAt)
        } catch let invalid as InvalidInput {
            let errors = invalid.issues.map { Self.sendLaterError($0, strings: strings) }
            return try await scenariosPage(request, context, errors: errors, values: form, status: .unprocessableContent)
        }
        return .redirect(to: Flash.scheduled.added(to: "/scenarios"), type: .normal)
    }

    /// A refused "send later" field, placed on the time (`sendAt`, for the moment as a whole) or on the day.
    static func sendLaterError(_ issue: Validation.Issue, strings: Strings) -> FormError {
        let isDay = issue.field == "sendDay"
        return FormError(
            field: isDay ? strings.sendLaterOn : strings.sendLaterAt, fieldId: isDay ? "send-day" : "send-time",
            message: CoordinatorPages.formMessage(issue, strings: strings))
    }
}

/// The scenarios screen: a mentor's, or a coordinator's with the publish form.
struct ScenariosPage {
    var chrome: PageChrome
    var heading: String
    var headingId: String
    var focusHeading: Bool
    var groups: [ListGroup]
    var emptyText: String?
    var errors: [FormError]
    var hasErrors: Bool
    var publish: PublishView?
    var strings: ScenarioStrings
}

struct ScenarioStrings {
    var errorSummary: String
}

/// The coordinators' publish form.
struct PublishView {
    var title: String
    var body: String
    var toAll: Bool
    var mentors: [MentorOption]
    var titleError: String?
    var bodyError: String?
    var mentorsError: String?
    /// When to publish it, as typed, and what is wrong with it.
    var sendTime: String
    var sendDay: String
    var sendTimeError: String?
    var sendDayError: String?
    var strings: PublishStrings
}

struct PublishStrings {
    var heading: String
    var title: String
    var body: String
    var audience: String
    var all: String
    var chosen: String
    var publish: String
    var sendLaterAt: String
    var sendLaterOn: String
    var sendLaterHint: String
}

/// One scenario's page: its text; for the mentor, the reflection form; for the coordinator, who has done it.
struct ScenarioPage {
    var chrome: PageChrome
    var heading: String
    var headingId: String
    var focusHeading: Bool
    var paragraphs: [String]
    var id: Int64
    var state: String?
    var reflection: String
    var reflectionError: String?
    var isMentor: Bool
    var progress: [String]
    var errors: [FormError]
    var hasErrors: Bool
    var strings: ScenarioDetailStrings
}

struct ScenarioDetailStrings {
    var reflection: String
    var hint: String
    var save: String
    var progress: String
    var errorSummary: String
}
