package broker

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/broker/audit"
	"github.com/mcp-sentinel/sentinel/broker/store"
)

func TestCheckpointerWritesOnlyWhenTheHeadMovedAndEverywhere(t *testing.T) {
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	key, _ := audit.GenerateSigner()
	var logs bytes.Buffer
	file := filepath.Join(t.TempDir(), "cp.jsonl")
	cp := &Checkpointer{Store: st, Signer: key, File: file, Logger: slog.New(slog.NewJSONHandler(&logs, nil))}
	first, err := cp.Checkpoint(t.Context())
	if err != nil || first == nil || first.Seq != 0 {
		t.Fatalf("first checkpoint of an empty log = %+v, %v", first, err)
	}
	if again, _ := cp.Checkpoint(t.Context()); again != nil {
		t.Fatalf("a checkpoint without a new entry: %+v", again)
	}
	if _, err := st.Append(t.Context(), audit.Entry{At: time.Now(), Tenant: "t", Tool: "x", Outcome: "ok"}); err != nil {
		t.Fatal(err)
	}
	next, err := cp.Checkpoint(t.Context())
	if err != nil || next == nil || next.Seq != 1 {
		t.Fatalf("checkpoint after an append = %+v, %v", next, err)
	}
	inFile, err := ReadCheckpointFile(file)
	if err != nil || len(inFile) != 2 || inFile[1] != *next {
		t.Fatalf("file = %+v, %v", inFile, err)
	}
	inDB, err := st.Checkpoints(t.Context())
	if err != nil || len(inDB) != 2 {
		t.Fatalf("database = %+v, %v", inDB, err)
	}
	keys := audit.Keys{}
	keys.Add(key.Public())
	if !keys.VerifyCheckpoint(inFile[1]) {
		t.Fatal("the file's checkpoint does not verify")
	}
	// Run logs each checkpoint with every field: the log itself is a checkpoint file.
	stop := anchor(t.Context(), &Checkpointer{Store: st, Signer: key, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	stop()
	logFile := filepath.Join(t.TempDir(), "broker.log")
	if err := os.WriteFile(logFile, append([]byte(`{"msg":"request","level":"INFO"}`+"\n"), logs.Bytes()...), 0o600); err != nil {
		t.Fatal(err)
	}
	fromLog, err := ReadCheckpointFile(logFile)
	if err != nil || len(fromLog) == 0 || !keys.VerifyCheckpoint(fromLog[len(fromLog)-1]) {
		t.Fatalf("checkpoints from the log = %+v, %v", fromLog, err)
	}
}

func TestReadCheckpointFileIgnoresATornLastLine(t *testing.T) {
	key, _ := audit.GenerateSigner()
	good, _ := json.Marshal(key.SignCheckpoint(audit.Checkpoint{Seq: 3, Hash: "h", At: 1}))
	path := filepath.Join(t.TempDir(), "cp.jsonl")
	if err := os.WriteFile(path, append(append(good, '\n'), []byte(`{"seq":4,"ha`)...), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCheckpointFile(path)
	if err != nil || len(got) != 1 || got[0].Seq != 3 {
		t.Fatalf("ReadCheckpointFile = %+v, %v", got, err)
	}
	if err := os.WriteFile(path, []byte("garbage\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCheckpointFile(path); err == nil {
		t.Fatal("a line that is not JSON was accepted")
	}
}
