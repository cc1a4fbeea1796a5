"""The faulty-client catalogue: one-defect variants of the reference client, each declaring the
client requirements it breaks, and the correct-but-different variants the stage must pass."""
