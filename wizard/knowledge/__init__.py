"""The wizard's facts: GPU catalog, goals, cloud platforms and currency rates from content/*.toml.

Everything is checked when it is loaded, because a typo in a data file would otherwise surface
as wrong advice far away from its cause. Every problem raises `KnowledgeError` naming the file,
the entry (`gpu[12] "GeForce RTX 4060"`), the field and the reason. Unknown fields are errors too:
a misspelt `availability_source` would silently disappear otherwise.

records.py declares what each entry holds and the rules its fields keep, and `Knowledge`, which
finds a catalog entry by the name a tool prints or by PCI id; goals.py holds the
goals and currencies that answers are checked against, read on their own for a class roster;
entries.py reads an entry against its declaration; load.py reads and checks the files;
lookup.py does the lookups with the default knowledge when none is given; damaged.py holds
KnowledgeError; content.py finds content/ and reads any file in it; manifest.py keeps
content/CHECKSUMS. Import from the module that holds a name: code that only catches
KnowledgeError then loads no records. Pure data, no Textual, no network. Loading the whole
folder takes a few milliseconds and the default folder is parsed once per process.
"""
