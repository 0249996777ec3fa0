package facts

import (
	"net"
	"slices"
	"strings"

	"agentk/platform/mutant"
)

// A peer name or a service name that Kubernetes or a mesh wrote for a
// service the telemetry knows by its plain service.name: a client span's
// server.address is the cluster DNS name `<name>.<namespace>.svc.cluster.local`
// (or `<name>.<namespace>.svc`, `<name>.<namespace>`, with or without a
// port), and an Istio sidecar that traces reports its spans under
// `<app>.<namespace>`. A span is a claim: the name is tied to a service only
// on its exact first DNS label, only when that label is exactly a known
// service, and only when no other known service could be meant.

// KnownService returns the known service name refers to: name itself when it
// is known, else the service `<name>` of a Kubernetes service DNS name or a
// sidecar's `<app>.<namespace>` when `<name>` is exactly a known service and
// no other known service is the name, or any shorter form of it, itself.
// An IP, a name of another shape and an unknown first label refer to none.
func KnownService(name string, known []string) (string, bool) {
	if name == "" {
		return "", false
	}
	if slices.Contains(known, name) {
		return name, true
	}
	host := name
	if h, port, err := net.SplitHostPort(name); err == nil && port != "" {
		host = h
	}
	if slices.Contains(known, host) {
		return host, true
	}
	if net.ParseIP(host) != nil {
		return "", false
	}
	labels := strings.Split(strings.TrimSuffix(host, "."), ".")
	if !k8sShape(labels) {
		return "", false
	}
	svc := labels[0]
	if !slices.Contains(known, svc) {
		return "", false
	}
	// Another known service spelled as a longer form of this name (a
	// service whose own service.name is `<name>.<namespace>`) could be
	// the one meant: refuse rather than guess.
	for n := 2; n <= len(labels); n++ {
		if slices.Contains(known, strings.Join(labels[:n], ".")) {
			return "", false
		}
	}
	return svc, true
}

// k8sShape reports whether labels spell `<name>.<namespace>`,
// `<name>.<namespace>.svc` or `<name>.<namespace>.svc.cluster.local`, each
// label non-empty.
func k8sShape(labels []string) bool {
	for _, l := range labels {
		if l == "" {
			return false
		}
	}
	switch len(labels) {
	case 2:
		return true
	case 3:
		return labels[2] == "svc"
	case 5:
		return labels[2] == "svc" && labels[3] == "cluster" && labels[4] == "local"
	}
	return false
}

// SidecarApp returns the app a sidecar's service name `<app>.<namespace>`
// stands for: exactly two labels, `<app>` a known service other than name
// (KnownService), so a mesh's proxy is read as its app, never as a second
// service. known may hold name itself (the sidecar's own spans).
func SidecarApp(name string, known []string) (string, bool) {
	if strings.Count(name, ".") != 1 || mutant.Off(mutant.SandboxSidecarApp) {
		return "", false
	}
	others := slices.DeleteFunc(slices.Clone(known), func(k string) bool { return k == name })
	app, ok := KnownService(name, others)
	return app, ok && app != name
}
