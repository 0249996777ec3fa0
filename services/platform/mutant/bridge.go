package mutant

// The bridge's checks on a human's answer (issue 34).
const (
	// BridgeSlackMessage is the bridge's check that a Slack click counts
	// only for the decision of the message it was made on.
	BridgeSlackMessage = "bridge.slack_message"
	// BridgePostedUnrecorded is the desk remembering a Slack message it
	// posted but could not record, so that the redelivery records it
	// rather than post again (clicks on the first message would be refused).
	BridgePostedUnrecorded = "bridge.posted_unrecorded"
)

// Bridge lists the mutants of the checks above and the test that kills
// each (`go test -tags agentk_mutants` with AGENTK_MUTANT set goes red).
var Bridge = []Mutant{
	{Name: BridgeSlackMessage, Check: "a Slack click counts only for the decision of the message it was made on",
		KilledBy: "test:services/bridge:./internal/httpport:^TestSlackClickCountsOnlyForItsMessage$"},
	{Name: BridgePostedUnrecorded, Check: "a Slack message posted whose ts the store could not take is recorded on redelivery, not posted again",
		KilledBy: "test:services/bridge:./internal/desk:^TestAPostWhoseTsWasNotRecordedIsRecordedOnRedelivery$"},
}
