package config

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ParseValue parses text as d declares it: the one parser of every kind,
// for Spec.Read and the Env getters alike. The error says what was expected,
// without the value (the caller adds it, unless it is a secret).
func ParseValue(d Decl, text string) (any, error) {
	switch d.Kind {
	case KindInt:
		return parseInt(text, d.Min, d.Max)
	case KindFloat:
		return parseFloat(text, d.Min, d.Max)
	case KindDuration:
		return parseDuration(text, d.MinDur, d.MaxDur, d.Seconds)
	case KindBool:
		return parseBool(text)
	case KindList:
		return parseList(text), nil
	case KindURL:
		return parseURL(text, d.Schemes)
	case KindEnum:
		return parseEnum(text, d.Allowed)
	}
	return text, nil
}

// inRange reports whether x is in [lo, hi]; hi zero is no upper bound.
func inRange(x, lo, hi float64) bool { return x >= lo && (hi == 0 || x <= hi) }

func rangeText(what string, lo, hi float64) string {
	if hi == 0 {
		return fmt.Sprintf("want %s of at least %g", what, lo)
	}
	return fmt.Sprintf("want %s from %g to %g", what, lo, hi)
}

func parseInt(text string, lo, hi float64) (int, error) {
	n, err := strconv.Atoi(text)
	if err == nil && inRange(float64(n), lo, hi) {
		return n, nil
	}
	return 0, errors.New(rangeText("an integer", lo, hi))
}

func parseFloat(text string, lo, hi float64) (float64, error) {
	f, err := strconv.ParseFloat(text, 64)
	if err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) && inRange(f, lo, hi) {
		return f, nil
	}
	return 0, errors.New(rangeText("a number", lo, hi))
}

// parseDuration reads a positive Go duration ("90s", "10m"), or with
// seconds a bare number of seconds, in [lo, hi] (hi zero: unbounded).
func parseDuration(text string, lo, hi time.Duration, seconds bool) (time.Duration, error) {
	d, err := time.ParseDuration(text)
	if err != nil && seconds {
		if n, nerr := strconv.ParseInt(text, 10, 64); nerr == nil {
			d, err = time.Duration(n)*time.Second, nil
		}
	}
	if err == nil && d > 0 && d >= lo && (hi == 0 || d <= hi) {
		return d, nil
	}
	switch {
	case hi != 0:
		return 0, fmt.Errorf("want a duration such as 30s or 10m, from %s to %s", max(lo, time.Nanosecond), hi)
	case lo > 0:
		return 0, fmt.Errorf("want a duration such as 30s or 10m, at least %s", lo)
	}
	return 0, errors.New("want a positive duration such as 30s or 10m")
}

func parseBool(text string) (bool, error) {
	switch strings.ToLower(text) {
	case "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off":
		return false, nil
	}
	return false, errors.New("want a boolean (1/0, true/false, yes/no, on/off)")
}

// parseList splits on commas, trims, and drops empty and repeated items.
func parseList(text string) []string {
	var out []string
	for s := range strings.SplitSeq(text, ",") {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func parseURL(text string, schemes []string) (string, error) {
	if len(schemes) == 0 {
		schemes = []string{"http", "https"}
	}
	u, err := url.Parse(text)
	if err == nil && u.Host != "" && slices.Contains(schemes, u.Scheme) {
		return text, nil
	}
	if slices.Equal(schemes, []string{"http", "https"}) {
		return "", errors.New("not an http(s) URL")
	}
	return "", fmt.Errorf("not an absolute %s URL", strings.Join(schemes, " or "))
}

func parseEnum(text string, allowed []string) (string, error) {
	if s := strings.ToLower(text); slices.Contains(allowed, s) {
		return s, nil
	}
	return "", fmt.Errorf("want one of %s", strings.Join(allowed, ", "))
}
