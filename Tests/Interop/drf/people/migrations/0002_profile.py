from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("people", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="Profile",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=100)),
                ("settings", models.JSONField(blank=True, default=dict)),
                ("balance", models.CharField(default="0", max_length=40)),
            ],
            options={
                "ordering": ["id"],
            },
        ),
    ]
