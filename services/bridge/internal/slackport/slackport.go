// Package slackport talks to the Slack Web API (chat.postMessage, chat.update)
// with the bot token, and answers interactions through their response_url.
package slackport

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"agentk/services/bridge/internal/approval"
	"agentk/services/bridge/internal/slackmsg"
)

// ErrResponseURL: a response_url outside the configured prefix; never called.
var ErrResponseURL = errors.New("slackport: response_url outside the allowed prefix")

// Options configure a Client.
type Options struct {
	APIURL   string
	BotToken string
	Channel  string
	// ResponseURLPrefix is what every response_url must start with.
	ResponseURLPrefix string
	// Links returns the links to show with a record.
	Links func(approval.Record) slackmsg.Links
	// HTTP is the client used; a 10 s timeout client when nil.
	HTTP *http.Client
	// Report, when set, is told the result of every Web API call, by method
	// (nil for success): the bridge turns a Slack that refuses its token or
	// its posts into a not-ready service, not a silence.
	Report func(method string, err error)
}

// Client is the bridge's Slack adapter. Safe for concurrent use.
type Client struct {
	api  *slack.Client
	o    Options
	http *http.Client
}

// New returns a Client.
func New(o Options) *Client {
	hc := o.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	if o.Links == nil {
		o.Links = func(approval.Record) slackmsg.Links { return slackmsg.Links{} }
	}
	return &Client{
		api:  slack.New(o.BotToken, slack.OptionAPIURL(o.APIURL), slack.OptionHTTPClient(hc)),
		o:    o,
		http: hc,
	}
}

// ErrSlack wraps every refusal or failure of the Slack Web API.
var ErrSlack = errors.New("slackport: slack")

func (c *Client) report(method string, err error) error {
	if err != nil {
		err = fmt.Errorf("%w: %s: %w", ErrSlack, method, err)
	}
	if c.o.Report != nil {
		c.o.Report(method, err)
	}
	return err
}

// AuthTest asks Slack whether it accepts the bot token (auth.test).
func (c *Client) AuthTest(ctx context.Context) error {
	_, err := c.api.AuthTestContext(ctx)
	return c.report("auth.test", err)
}

// Post sends a new decision with chat.postMessage and returns its channel and ts.
func (c *Client) Post(ctx context.Context, rec approval.Record) (string, string, error) {
	text, blocks := slackmsg.Decision(rec, c.o.Links(rec))
	ch, ts, err := c.api.PostMessageContext(ctx, c.o.Channel,
		slack.MsgOptionText(text, false), slack.MsgOptionBlocks(blocks...), slack.MsgOptionDisableLinkUnfurl())
	if err := c.report("chat.postMessage", err); err != nil {
		return "", "", err
	}
	return ch, ts, nil
}

// Update rewrites the posted message of an answered record with chat.update:
// who answered and when, and the deployer's outcome once it arrived.
func (c *Client) Update(ctx context.Context, rec approval.Record) error {
	text, blocks := slackmsg.Answered(rec, c.o.Links(rec))
	_, _, _, err := c.api.UpdateMessageContext(ctx, rec.SlackChannel, rec.SlackTS,
		slack.MsgOptionText(text, false), slack.MsgOptionBlocks(blocks...))
	return c.report("chat.update", err)
}

// PostOutcome replies in the decision's thread with the deployer's outcome
// and the recovery verdict, and returns the reply's ts.
func (c *Client) PostOutcome(ctx context.Context, rec approval.Record) (string, error) {
	if rec.Action == nil || rec.SlackTS == "" {
		return "", nil
	}
	text, blocks := slackmsg.Outcome(rec, *rec.Action, c.o.Links(rec))
	_, ts, err := c.api.PostMessageContext(ctx, rec.SlackChannel,
		slack.MsgOptionText(text, false), slack.MsgOptionBlocks(blocks...), slack.MsgOptionTS(rec.SlackTS),
		slack.MsgOptionDisableLinkUnfurl())
	if err := c.report("chat.postMessage (thread)", err); err != nil {
		return "", err
	}
	return ts, nil
}

// Replace replaces the original message through an interaction's response_url
// with the record as it now stands.
func (c *Client) Replace(ctx context.Context, responseURL string, rec approval.Record) error {
	text, blocks := slackmsg.Answered(rec, c.o.Links(rec))
	return c.respond(ctx, responseURL, &slack.WebhookMessage{
		Text: text, Blocks: &slack.Blocks{BlockSet: blocks}, ReplaceOriginal: true,
	})
}

// Tell sends an ephemeral reply, visible only to the clicking user, through an
// interaction's response_url; the original message is kept.
func (c *Client) Tell(ctx context.Context, responseURL, text string) error {
	return c.respond(ctx, responseURL, &slack.WebhookMessage{Text: text, ResponseType: slack.ResponseTypeEphemeral})
}

func (c *Client) respond(ctx context.Context, responseURL string, msg *slack.WebhookMessage) error {
	if c.o.ResponseURLPrefix == "" || !strings.HasPrefix(responseURL, c.o.ResponseURLPrefix) {
		return ErrResponseURL
	}
	if err := slack.PostWebhookCustomHTTPContext(ctx, responseURL, c.http, msg); err != nil {
		return fmt.Errorf("slackport: response_url: %w", err)
	}
	return nil
}
