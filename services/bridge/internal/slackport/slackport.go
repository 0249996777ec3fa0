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

// Post sends a new decision with chat.postMessage and returns its channel and ts.
func (c *Client) Post(ctx context.Context, rec approval.Record) (string, string, error) {
	text, blocks := slackmsg.Decision(rec, c.o.Links(rec))
	ch, ts, err := c.api.PostMessageContext(ctx, c.o.Channel,
		slack.MsgOptionText(text, false), slack.MsgOptionBlocks(blocks...), slack.MsgOptionDisableLinkUnfurl())
	if err != nil {
		return "", "", fmt.Errorf("slackport: chat.postMessage: %w", err)
	}
	return ch, ts, nil
}

// Update rewrites the posted message of an answered record with chat.update.
func (c *Client) Update(ctx context.Context, rec approval.Record) error {
	text, blocks := slackmsg.Answered(rec, c.o.Links(rec))
	if _, _, _, err := c.api.UpdateMessageContext(ctx, rec.SlackChannel, rec.SlackTS,
		slack.MsgOptionText(text, false), slack.MsgOptionBlocks(blocks...)); err != nil {
		return fmt.Errorf("slackport: chat.update: %w", err)
	}
	return nil
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
