// Package freeport hands tests a loopback port for a server that another
// process binds later.
//
// A port taken from the kernel with Listen(":0") and closed again lies in
// the ephemeral range, the same range the kernel hands every outgoing
// connection: a NATS client dialling between the close and the child's
// bind can take it ("bind: address already in use", seen in CI). The ports
// here come from below that range, where only a listener asks for a port
// by number, and each is checked free before it is handed out.
package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// floor is the lowest port handed out: above the registered services most
// hosts run, below every Linux default ephemeral range.
const floor = 20000

var (
	mu     sync.Mutex
	handed = map[int]bool{}
)

// Port is a loopback port that is free now, outside the ephemeral range,
// and not handed out before by this process.
func Port(tb testing.TB) int {
	tb.Helper()
	top := ephemeralStart()
	mu.Lock()
	defer mu.Unlock()
	for range 200 {
		p := floor + rand.IntN(top-floor)
		if handed[p] {
			continue
		}
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			continue
		}
		_ = l.Close()
		handed[p] = true
		return p
	}
	tb.Fatalf("freeport: no free loopback port in [%d, %d) after 200 tries", floor, top)
	return 0
}

// Addr is "127.0.0.1:<Port>".
func Addr(tb testing.TB) string {
	tb.Helper()
	return fmt.Sprintf("127.0.0.1:%d", Port(tb))
}

// ephemeralStart is the first port of the kernel's ephemeral range, or
// 32768 (Linux's default) where it cannot be read.
func ephemeralStart() int {
	const linuxDefault = 32768
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return linuxDefault
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return linuxDefault
	}
	n, err := strconv.Atoi(fields[0])
	if err != nil || n <= floor+1000 {
		return linuxDefault
	}
	return n
}
