package auth

import (
	"errors"
	"io"
)

// readFull reads until buf is full or EOF, returning how many bytes were read; EOF is not an error.
func readFull(r io.Reader, buf []byte) (int, error) {
	n, err := io.ReadFull(r, buf)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return n, nil
	}
	return n, err
}
