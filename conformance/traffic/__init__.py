"""The suite's own traffic to a target: the client, replies and transcripts, raw-socket exchanges,
the open-loop sender, curl reproductions, and the one token-bucket model behind pacing and the
ledger of what the suite sent."""
