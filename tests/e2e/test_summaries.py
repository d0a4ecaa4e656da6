"""The summary's switches on the settings page save as they are toggled, as every switch there does."""
from varsel_server import wait_until


def test_a_summary_switch_saves_as_it_is_toggled_and_its_time_with_the_button(page, server):
    token = server.token("demo-mentor")

    def stored() -> dict:
        return server.request("GET", "/api/v1/preferences", token)[2]

    page.goto(server.base_url + "/settings")
    assert stored()["summaryKinds"] == []
    page.click("#setting-summary-scenarioPrompt")
    assert wait_until(lambda: stored()["summaryKinds"] == ["scenarioPrompt"]), stored()
    page.click("#setting-summary-certificationExpiry")
    assert wait_until(lambda: stored()["summaryKinds"] == ["certificationExpiry", "scenarioPrompt"]), stored()
    page.fill("#summary-time", "0715")
    page.click("#save-settings")
    page.wait_for_url("**/settings?done=settings*")
    assert stored()["summaryTime"] == "07:15" and stored()["summaryKinds"] == ["certificationExpiry", "scenarioPrompt"]
    assert page.input_value("#summary-time") == "07:15"
