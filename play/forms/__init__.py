"""Every form of the site, by action family: each checks what a person can get wrong (ranges, text in numbers) and
builds one action's input; rules.actions checks the rest, and its ActionError lands beside the field it names
(play.forms.base.ActionForm.apply)."""
