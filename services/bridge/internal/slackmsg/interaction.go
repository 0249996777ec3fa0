package slackmsg

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/slack-go/slack"

	"agentk/contracts"
)

// ErrPayload is returned for an interaction payload the bridge cannot act on.
var ErrPayload = errors.New("slackmsg: unusable interaction payload")

// Click is one button press from a block_actions interaction.
type Click struct {
	UserID      string
	TeamID      string
	ResponseURL string
	ChannelID   string
	MessageTS   string
	DecisionID  string
	Digest      string
	Answer      string
	// FreezeService is set (and the answer fields empty) for a "Freeze
	// service" click.
	FreezeService string
	// Link is true for a click on a SigNoz link button: Slack opened the
	// link; there is nothing to do but acknowledge.
	Link bool
}

// ParseInteraction decodes the JSON of a block_actions payload (the form
// field "payload") into the one button press it carries. Any other shape is
// ErrPayload.
func ParseInteraction(payload []byte) (Click, error) {
	var ic slack.InteractionCallback
	if err := json.Unmarshal(payload, &ic); err != nil {
		return Click{}, fmt.Errorf("%w: %v", ErrPayload, err)
	}
	if ic.Type != slack.InteractionTypeBlockActions {
		return Click{}, fmt.Errorf("%w: type %q", ErrPayload, ic.Type)
	}
	if ic.User.ID == "" {
		return Click{}, fmt.Errorf("%w: no user", ErrPayload)
	}
	acts := ic.ActionCallback.BlockActions
	if len(acts) != 1 {
		return Click{}, fmt.Errorf("%w: %d actions, want 1", ErrPayload, len(acts))
	}
	a := acts[0]
	if strings.HasPrefix(a.ActionID, ActionLinkPrefix) {
		return Click{UserID: ic.User.ID, TeamID: ic.Team.ID, Link: true}, nil
	}
	if a.ActionID == ActionFreeze {
		if !contracts.ValidFreezeScope(a.Value) || a.Value == contracts.FreezeGlobal {
			return Click{}, fmt.Errorf("%w: freeze value", ErrPayload)
		}
		return Click{UserID: ic.User.ID, TeamID: ic.Team.ID, ResponseURL: ic.ResponseURL,
			ChannelID: ic.Channel.ID, MessageTS: ic.Container.MessageTs, FreezeService: a.Value}, nil
	}
	var answer string
	switch a.ActionID {
	case ActionApprove:
		answer = contracts.AnswerApprove
	case ActionDeny:
		answer = contracts.AnswerDeny
	default:
		return Click{}, fmt.Errorf("%w: action %q", ErrPayload, a.ActionID)
	}
	i := strings.LastIndexByte(a.Value, '|')
	if i <= 0 || i == len(a.Value)-1 {
		return Click{}, fmt.Errorf("%w: button value", ErrPayload)
	}
	c := Click{
		UserID: ic.User.ID, TeamID: ic.Team.ID, ResponseURL: ic.ResponseURL,
		ChannelID: ic.Channel.ID, MessageTS: ic.Container.MessageTs,
		DecisionID: a.Value[:i], Digest: a.Value[i+1:], Answer: answer,
	}
	if c.MessageTS == "" {
		c.MessageTS = ic.Message.Timestamp
	}
	return c, nil
}
