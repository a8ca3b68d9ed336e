"""Django's own words that this site shows, in our voice.

Form errors, the password rules, the login and sign-up forms, the CSRF page and the admin's messages come from
Django's catalogue, which speaks formal Spanish ("Asegúrese de que…", "Su contraseña…"), misspells "carácteres" and
writes "El enfermedad … fue agregado". Listed here, `make messages` keeps each of them in our catalogue, and since
locale/ comes first (LOCALE_PATHS) our wording wins: the app's informal "tú", in words that fit any gender. The
Spanish lives in locale/es; English is Django's own. Nothing imports this module but the voice test, which also
checks that each of these reads in our voice (tests/test_voice.py).
"""

# ruff: noqa: E501 — Django's msgids whole, as they are found in its catalogue
from django.utils.translation import gettext_noop, ngettext_lazy

WORDS = [
    gettext_noop("Ensure this value is less than or equal to %(limit_value)s."),
    gettext_noop("Ensure this value is greater than or equal to %(limit_value)s."),
    gettext_noop("Ensure this value is %(limit_value)s (it is %(show_value)s)."),
    gettext_noop("Ensure this value is a multiple of step size %(limit_value)s."),
    gettext_noop(
        "Ensure this value is a multiple of step size %(limit_value)s, starting from %(offset)s, e.g. %(offset)s, %(valid_value1)s, %(valid_value2)s, and so on."
    ),
    gettext_noop("Enter a valid value."),
    gettext_noop("Enter a number."),
    gettext_noop("Enter a whole number."),
    gettext_noop("Enter a valid integer."),
    gettext_noop("Enter a list of values."),
    gettext_noop("Enter a complete value."),
    gettext_noop("Enter a valid date."),
    gettext_noop("Enter a valid time."),
    gettext_noop("Enter a valid date/time."),
    gettext_noop("Enter a valid duration."),
    gettext_noop("Enter a valid email address."),
    gettext_noop("Enter a valid URL."),
    gettext_noop("Enter a valid UUID."),
    gettext_noop("Enter a valid JSON."),
    gettext_noop("Enter a valid domain name."),
    gettext_noop("Enter a valid %(protocol)s address."),
    gettext_noop("Enter a valid “slug” consisting of letters, numbers, underscores or hyphens."),
    gettext_noop("Enter a valid “slug” consisting of Unicode letters, numbers, underscores, or hyphens."),
    gettext_noop("Enter only digits separated by commas."),
    gettext_noop("Select a valid choice. That choice is not one of the available choices."),
    gettext_noop("Select a valid choice. %(value)s is not one of the available choices."),
    gettext_noop("No file was submitted."),
    gettext_noop("No file was submitted. Check the encoding type on the form."),
    gettext_noop("The submitted file is empty."),
    gettext_noop("Please either submit a file or check the clear checkbox, not both."),
    gettext_noop("Upload a valid image. The file you uploaded was either not an image or a corrupted image."),
    gettext_noop(
        "If you have configured your browser to disable cookies, please re-enable them, at least for this site, or for “same-origin” requests."
    ),
    gettext_noop(
        "If you have configured your browser to disable “Referer” headers, please re-enable them, at least for this site, or for HTTPS connections, or for “same-origin” requests."
    ),
    gettext_noop(
        'If you are using the <meta name="referrer" content="no-referrer"> tag or including the “Referrer-Policy: no-referrer” header, please remove them. The CSRF protection requires the “Referer” header to do strict referer checking. If you’re concerned about privacy, use alternatives like <a rel="noreferrer" …> for links to third-party sites.'
    ),
    gettext_noop("Please enter a correct %(username)s and password. Note that both fields may be case-sensitive."),
    gettext_noop("Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only."),
    gettext_noop("Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters."),
    gettext_noop(
        "Enter a valid username. This value may contain only unaccented lowercase a-z and uppercase A-Z letters, numbers, and @/./+/-/_ characters."
    ),
    gettext_noop("Enter the same password as before, for verification."),
    gettext_noop("Your password can’t be too similar to your other personal information."),
    gettext_noop("Your password can’t be a commonly used password."),
    gettext_noop("Your password can’t be entirely numeric."),
    gettext_noop("Your old password was entered incorrectly. Please enter it again."),
    gettext_noop("The {name} “{obj}” was added successfully."),
    gettext_noop("You may edit it again below."),
    gettext_noop("The {name} “{obj}” was added successfully. You may add another {name} below."),
    gettext_noop("The {name} “{obj}” was changed successfully."),
    gettext_noop("The {name} “{obj}” was changed successfully. You may edit it again below."),
    gettext_noop("The {name} “{obj}” was changed successfully. You may add another {name} below."),
    gettext_noop("The %(name)s “%(obj)s” was deleted successfully."),
    gettext_noop("%(name)s with ID “%(key)s” doesn’t exist. Perhaps it was deleted?"),
    gettext_noop("Successfully deleted %(count)d %(items)s."),
    gettext_noop(
        "Are you sure you want to delete the %(object_name)s “%(escaped_object)s”? All of the following related items will be deleted:"
    ),
    gettext_noop(
        "Are you sure you want to delete the selected %(objects_name)s? All of the following objects and their related items will be deleted:"
    ),
    gettext_noop(
        "Deleting the %(object_name)s “%(escaped_object)s” would result in deleting related objects, but your account doesn't have permission to delete the following types of objects:"
    ),
    gettext_noop(
        "Deleting the %(object_name)s “%(escaped_object)s” would require deleting the following protected related objects:"
    ),
    gettext_noop(
        "Deleting the selected %(objects_name)s would result in deleting related objects, but your account doesn't have permission to delete the following types of objects:"
    ),
    gettext_noop(
        "Deleting the selected %(objects_name)s would require deleting the following protected related objects:"
    ),
    gettext_noop(
        "Please enter the correct %(username)s and password for a staff account. Note that both fields may be case-sensitive."
    ),
    gettext_noop("Your password was changed."),
    gettext_noop(
        "Please enter your old password, for security’s sake, and then enter your new password twice so we can verify you typed it in correctly."
    ),
    gettext_noop("Please enter your new password twice so we can verify you typed it in correctly."),
    gettext_noop("Enter a new password for the user <strong>%(username)s</strong>."),
    gettext_noop(
        "You are authenticated as %(username)s, but are not authorized to access this page. Would you like to login to a different account?"
    ),
    gettext_noop("Select %s"),
    gettext_noop("Select %s to change"),
    gettext_noop("Select %s to view"),
    gettext_noop("Select all objects on this page for an action"),
    gettext_noop("Select this object for an action - {}"),
    gettext_noop("Welcome,"),
    # Django 6 asks for these in the admin, and its Spanish catalogue leaves them blank ("Search enfermedades").
    gettext_noop("Search %(name)s"),
    gettext_noop("- Select an option -"),  # the empty choice of a select
]
PLURAL_WORDS = [
    ngettext_lazy(
        "Ensure this value has at most %(limit_value)d character (it has %(show_value)d).",
        "Ensure this value has at most %(limit_value)d characters (it has %(show_value)d).",
        2,
    ),
    ngettext_lazy(
        "Ensure this value has at least %(limit_value)d character (it has %(show_value)d).",
        "Ensure this value has at least %(limit_value)d characters (it has %(show_value)d).",
        2,
    ),
    ngettext_lazy(
        "Ensure that there are no more than %(max)s digit in total.",
        "Ensure that there are no more than %(max)s digits in total.",
        2,
    ),
    ngettext_lazy(
        "Ensure that there are no more than %(max)s decimal place.",
        "Ensure that there are no more than %(max)s decimal places.",
        2,
    ),
    ngettext_lazy(
        "Ensure that there are no more than %(max)s digit before the decimal point.",
        "Ensure that there are no more than %(max)s digits before the decimal point.",
        2,
    ),
    ngettext_lazy(
        "Ensure this filename has at most %(max)d character (it has %(length)d).",
        "Ensure this filename has at most %(max)d characters (it has %(length)d).",
        2,
    ),
    ngettext_lazy(
        "Your password must contain at least %(min_length)d character.",
        "Your password must contain at least %(min_length)d characters.",
        2,
    ),
    ngettext_lazy("%(count)s %(name)s was changed successfully.", "%(count)s %(name)s were changed successfully.", 2),
    ngettext_lazy("Please correct the error below.", "Please correct the errors below.", 2),
]

# django-axes' words in the admin ("Access attempts", their columns, filters and actions): it ships no Spanish.
AXES_WORDS = [
    gettext_noop("Access Attempt"),
    gettext_noop("access attempt"),
    gettext_noop("access attempts"),
    gettext_noop("access failure"),
    gettext_noop("access failures"),
    gettext_noop("access log"),
    gettext_noop("access logs"),
    gettext_noop("access attempt expiration"),
    gettext_noop("access attempt expirations"),
    gettext_noop("Access lock out"),
    gettext_noop("Attempt Remaining"),
    gettext_noop("Attempt Time"),
    gettext_noop("Clean up expired attempts"),
    gettext_noop("Expires At"),
    gettext_noop("Failed Logins"),
    gettext_noop("Form Data"),
    gettext_noop("GET Data"),
    gettext_noop("POST Data"),
    gettext_noop("HTTP Accept"),
    gettext_noop("IP Address"),
    gettext_noop("Locked Out"),
    gettext_noop("Logout Time"),
    gettext_noop("Meta Data"),
    gettext_noop("Not set"),
    gettext_noop("Path"),
    gettext_noop("Session key hash (sha256)"),
    gettext_noop("The time when access attempt expires and is no longer valid."),
    gettext_noop("User Agent"),
    gettext_noop("Username"),
]
