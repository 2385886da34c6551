-- The language the visitor wrote in (the contact page's, decision 0266),
-- so the mail can tell the people who answer. Enquiries stored before
-- came from the English form.
ALTER TABLE enquiries ADD COLUMN language TEXT NOT NULL DEFAULT 'en';
