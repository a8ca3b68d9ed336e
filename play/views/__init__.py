"""Every page of the site, by concept: the table and its actions (table, checks), campaigns and invitations
(campaigns), accounts (accounts), character sheets (characters), diseases (diseases) and the rules page
(rules_page). The live stream is play.live.streams. Only play.urls imports these."""
