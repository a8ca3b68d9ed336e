"""The campaign document: its schema (schema.py, states.py), export (export.py), and restore as a new campaign
(read.py and validate.py judge a file, restore.py writes it). Pages use the three functions and the size limit below."""

from rules.backup.export import export_campaign
from rules.backup.read import DOCUMENT_BYTES, read_document
from rules.backup.restore import import_campaign

__all__ = ["DOCUMENT_BYTES", "export_campaign", "import_campaign", "read_document"]
