// Package seal protects MRTR requestState: the state a tool hands a client in an
// InputRequiredResult and gets back on the retry. The client must not be able to read-modify it,
// replay it as someone else, keep it forever, or attach it to a different request, so a sealed
// state is AES-256-GCM ciphertext with the tool name as additional authenticated data, carrying
// the principal, an expiry and a digest of the originating request, each checked on Open.
//
// Keys come from configuration and rotate: the first key of a Keyring seals, every key opens.
//
// seal imports nothing of Sentinel's.
package seal
