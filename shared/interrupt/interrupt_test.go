package interrupt

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"forgectl.dev/shared/poll"
)

// kill sends sig to this process: real signals, through the runtime's own
// handling, as a terminal's Ctrl-C or a service manager's stop would.
func kill(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := syscall.Kill(os.Getpid(), sig); err != nil {
		t.Fatal(err)
	}
}

// within fails when Run has not returned in a few seconds.
func within(t *testing.T, run func() int) int {
	t.Helper()
	got := make(chan int, 1)
	go func() { got <- run() }()
	select {
	case c := <-got:
		return c
	case <-time.After(poll.Long):
		t.Fatal("Run did not return")
		return 0
	}
}

func TestNoSignalIsWorksOwnCode(t *testing.T) {
	ran := false
	code := Run(context.Background(), func(ctx context.Context) int {
		remove := OnExit(ctx, func() { ran = true })
		remove()
		return 2
	})
	if code != 2 || ran {
		t.Fatalf("code %d, removed cleanup ran %v", code, ran)
	}
}

func TestFirstSignalCancels(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		left := make(chan struct{})
		code := within(t, func() int {
			return Run(context.Background(), func(ctx context.Context) int {
				// A goroutine the work leaves behind still holds a temp file.
				OnExit(ctx, func() { close(left) })
				if Signalled(ctx) != 0 {
					t.Error("Signalled before a signal")
				}
				kill(t, tc.sig)
				<-ctx.Done()
				return Signalled(ctx) // what forgectl returns
			})
		})
		if code != tc.want {
			t.Errorf("%v: exit %d, want %d", tc.sig, code, tc.want)
		}
		select {
		case <-left:
		default:
			t.Errorf("%v: the cleanup of work left behind did not run", tc.sig)
		}
	}
}

func TestSecondSignalEndsAtOnce(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		cleaned := make(chan struct{})
		stuck := make(chan struct{})
		defer close(stuck)
		code := within(t, func() int {
			return Run(context.Background(), func(ctx context.Context) int {
				OnExit(ctx, func() { close(cleaned) })
				kill(t, tc.sig)
				<-ctx.Done()
				kill(t, tc.sig)
				<-stuck // blocked where no context reaches
				return 0
			})
		})
		if code != tc.want {
			t.Errorf("%v twice: exit %d, want %d", tc.sig, code, tc.want)
		}
		select {
		case <-cleaned:
		default:
			t.Errorf("%v twice: returned before the cleanup ran", tc.sig)
		}
	}
}

func TestOutsideRun(t *testing.T) {
	ran := false
	OnExit(context.Background(), func() { ran = true })()
	if ran || Signalled(context.Background()) != 0 {
		t.Fatal("a cleanup without Run ran, or a signal was seen")
	}
}
